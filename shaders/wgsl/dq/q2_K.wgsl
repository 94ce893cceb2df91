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

// Unit u is sub-block s = u % 8 (n = s/4, j = s%4) of block u / 8: 32 bytes of
// qs at shift 2j, with one scale byte per half.
fn udot(rb: u32, u: u32, xs: ptr<function, array<vec4<f32>, 8>>, sx: f32) -> f32 {
    let b = rb + (u >> 3u) * TS;
    let s = u & 7u;
    let n = s >> 2u;
    let j = s & 3u;
    let q0 = rd4x(b + 16u + (n << 5u));
    let q1 = rd4x(b + 32u + (n << 5u));
    var s0 = 0.0;
    var s1 = 0.0;
    var x0 = vec4<f32>(0.0);
    for (var k = 0u; k < 4u; k++) {
        s0 += dot(ub(bfield(q0[k], j << 1u, 0x03030303u)), (*xs)[k]);
        s1 += dot(ub(bfield(q1[k], j << 1u, 0x03030303u)), (*xs)[4u + k]);
        x0 += (*xs)[k];
    }
    let sx0 = hsum(x0);
    let sc0 = rd8(b + (n << 3u) + (j << 1u));
    let sc1 = rd8(b + (n << 3u) + (j << 1u) + 1u);
    let dm = h2f(rd32(b + 80u));
    return dm.x * K255 * (f32(sc0 & 15u) * s0 + f32(sc1 & 15u) * s1) - dm.y * (f32(sc0 >> 4u) * sx0 + f32(sc1 >> 4u) * (sx - sx0));
}
