// q3_K: 256 elements in 110 bytes: hmask[32], qs[64], scales[12] (16 packed 6-bit), d.
// Element e: n = e/128, j = (e%128)/32, l = e%32; 2-bit q at shift 2j of qs[32n + l], minus 4
// when bit 4n+j of hmask[l] is clear; sub-block is = 8n + 2j + l/16; value d * (sc - 32) * q.
const BS: u32 = 256u;
const TS: u32 = 110u;

fn row_base(row: u32, K: u32) -> u32 {
    return row * (K / BS) * TS;
}

fn dq(rb: u32, e: u32) -> f32 {
    let b = rb + (e / BS) * TS;
    let i = e % BS;
    let n = i >> 7u;
    let j = (i >> 5u) & 3u;
    let l = i & 31u;
    let is = (n << 3u) + (j << 1u) + (l >> 4u);
    let lo = (rd8(b + 96u + (is & 7u)) >> ((is >> 3u) << 2u)) & 15u;
    let hi = (rd8(b + 104u + (is & 3u)) >> ((is >> 2u) << 1u)) & 3u;
    let sc = f32(lo | (hi << 4u)) - 32.0;
    let q = (rd8(b + 32u + (n << 5u) + l) >> (j << 1u)) & 3u;
    let hbit = (rd8(b + l) >> ((n << 2u) + j)) & 1u;
    return rdh(b + 108u) * sc * (f32(q) - select(4.0, 0.0, hbit == 1u));
}

fn scale3(b: u32, is: u32) -> f32 {
    let lo = (rd8(b + 96u + (is & 7u)) >> ((is >> 3u) << 2u)) & 15u;
    let hi = (rd8(b + 104u + (is & 3u)) >> ((is >> 2u) << 1u)) & 3u;
    return f32(lo | (hi << 4u)) - 32.0;
}

// Unit u is sub-block s = u % 8 (n = s/4, j = s%4): q = 2 bits of qs at shift 2j
// plus 4 when bit 4n+j of hmask is set, minus 4; one 6-bit scale per half.
fn udot(rb: u32, u: u32, xs: ptr<function, array<vec4<f32>, 8>>, sx: f32) -> f32 {
    let b = rb + (u >> 3u) * TS;
    let s = u & 7u;
    let n = s >> 2u;
    let j = s & 3u;
    let q0 = rd4x(b + 32u + (n << 5u));
    let q1 = rd4x(b + 48u + (n << 5u));
    let h0 = rd4x(b);
    let h1 = rd4x(b + 16u);
    let hs = (n << 2u) + j;
    var s0 = 0.0;
    var s1 = 0.0;
    var x0 = vec4<f32>(0.0);
    for (var k = 0u; k < 4u; k++) {
        let a = ub(bfield(q0[k], j << 1u, 0x03030303u) | (bfield(h0[k], hs, 0x01010101u) << 2u));
        let c = ub(bfield(q1[k], j << 1u, 0x03030303u) | (bfield(h1[k], hs, 0x01010101u) << 2u));
        s0 += dot(a, (*xs)[k]);
        s1 += dot(c, (*xs)[4u + k]);
        x0 += (*xs)[k];
    }
    let sx0 = hsum(x0);
    let is = (n << 3u) + (j << 1u);
    return rdh(b + 108u) * (scale3(b, is) * (K255 * s0 - 4.0 * sx0) + scale3(b, is + 1u) * (K255 * s1 - 4.0 * (sx - sx0)));
}
