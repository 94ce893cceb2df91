// q6_K: 256 elements in 210 bytes: ql[128], qh[64], scales i8[16], d.
// Element e: n = e/128, g = (e%128)/32, l = e%32; low 4 bits from ql[64n + l + 32(g&1)]
// (high nibble when g >= 2), high 2 bits at shift 2g of qh[32n + l];
// scale scales[8n + l/16 + 2g]; value d * sc * (q - 32).
const BS: u32 = 256u;
const TS: u32 = 210u;

fn row_base(row: u32, K: u32) -> u32 {
    return row * (K / BS) * TS;
}

fn dq(rb: u32, e: u32) -> f32 {
    let b = rb + (e / BS) * TS;
    let i = e % BS;
    let n = i >> 7u;
    let g = (i >> 5u) & 3u;
    let l = i & 31u;
    let lo = (rd8(b + (n << 6u) + l + ((g & 1u) << 5u)) >> ((g >> 1u) << 2u)) & 15u;
    let hi = (rd8(b + 128u + (n << 5u) + l) >> (g << 1u)) & 3u;
    let sc = rd8s(b + 192u + (n << 3u) + (l >> 4u) + (g << 1u));
    return rdh(b + 208u) * f32(sc) * (f32(lo | (hi << 4u)) - 32.0);
}
