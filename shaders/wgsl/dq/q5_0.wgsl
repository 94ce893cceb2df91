// q5_0: 32 elements in 22 bytes: d f16, qh u32 (5th bits), qs[16]; (q - 16) * d.
const BS: u32 = 32u;
const TS: u32 = 22u;

fn row_base(row: u32, K: u32) -> u32 {
    return row * (K / BS) * TS;
}

fn dq(rb: u32, e: u32) -> f32 {
    let b = rb + (e / BS) * TS;
    let i = e % BS;
    let lo = (rd8(b + 6u + (i & 15u)) >> ((i >> 4u) << 2u)) & 15u;
    let hb = (rd32(b + 2u) >> i) & 1u;
    return rdh(b) * (f32(lo | (hb << 4u)) - 16.0);
}

fn udot(rb: u32, u: u32, xs: ptr<function, array<vec4<f32>, 8>>, sx: f32) -> f32 {
    let b = rb + u * TS;
    let qh = rd32(b + 2u);
    let q = rd4x(b + 6u);
    var s = 0.0;
    for (var k = 0u; k < 4u; k++) {
        let lo = ub((q[k] & 0x0f0f0f0fu) | (spread4(qh >> (4u * k)) << 4u));
        let hi = ub(((q[k] >> 4u) & 0x0f0f0f0fu) | (spread4(qh >> (16u + 4u * k)) << 4u));
        s += dot(lo, (*xs)[k]) + dot(hi, (*xs)[4u + k]);
    }
    return rdh(b) * (K255 * s - 16.0 * sx);
}
