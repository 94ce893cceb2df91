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

// Unit u is sub-block s = u % 8 (n = s/4, g = s%4): low 4 bits from 32 ql
// bytes at 64n + 32(g&1) (high nibble when g >= 2), high 2 bits at shift 2g
// of the 32 qh bytes at 128 + 32n; an int8 scale per half.
fn udot(rb: u32, u: u32, xs: ptr<function, array<vec4<f32>, 8>>, sx: f32) -> f32 {
    let b = rb + (u >> 3u) * TS;
    let s = u & 7u;
    let n = s >> 2u;
    let g = s & 3u;
    let lo = b + (n << 6u) + ((g & 1u) << 5u);
    let l0 = rd4x(lo);
    let l1 = rd4x(lo + 16u);
    let h0 = rd4x(b + 128u + (n << 5u));
    let h1 = rd4x(b + 144u + (n << 5u));
    let ls = (g >> 1u) << 2u;
    var s0 = 0.0;
    var s1 = 0.0;
    var x0 = vec4<f32>(0.0);
    for (var k = 0u; k < 4u; k++) {
        s0 += dot(ub(bfield(l0[k], ls, 0x0f0f0f0fu) | (bfield(h0[k], g << 1u, 0x03030303u) << 4u)), (*xs)[k]);
        s1 += dot(ub(bfield(l1[k], ls, 0x0f0f0f0fu) | (bfield(h1[k], g << 1u, 0x03030303u) << 4u)), (*xs)[4u + k]);
        x0 += (*xs)[k];
    }
    let sx0 = hsum(x0);
    let sc = b + 192u + (n << 3u) + (g << 1u);
    return rdh(b + 208u) * (f32(rd8s(sc)) * (K255 * s0 - 32.0 * sx0) + f32(rd8s(sc + 1u)) * (K255 * s1 - 32.0 * (sx - sx0)));
}
