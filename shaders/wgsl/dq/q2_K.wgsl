// q2_K: 256 elements in 84 bytes: scales[16] (lo nibble scale, hi nibble min), qs[64], d, dmin.
// Element e: half n = e/128, group j = (e%128)/32, l = e%32; 2-bit q at shift 2j of qs[32n + l];
// sub-block is = 8n + 2j + l/16; value d * (sc & 15) * q - dmin * (sc >> 4).
const BS: u32 = 256u;
const TS: u32 = 84u;

fn row_base(row: u32, K: u32) -> u32 {
    return row * (K / BS) * TS;
}

fn dq(rb: u32, e: u32) -> f32 {
    let b = rb + (e / BS) * TS;
    let i = e % BS;
    let n = i >> 7u;
    let j = (i >> 5u) & 3u;
    let l = i & 31u;
    let sc = rd8(b + (n << 3u) + (j << 1u) + (l >> 4u));
    let q = (rd8(b + 16u + (n << 5u) + l) >> (j << 1u)) & 3u;
    return rdh(b + 80u) * f32(sc & 15u) * f32(q) - rdh(b + 82u) * f32(sc >> 4u);
}
