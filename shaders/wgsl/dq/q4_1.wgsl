// q4_1: 32 elements in 20 bytes: d f16, m f16, qs[16]; q * d + m.
const BS: u32 = 32u;
const TS: u32 = 20u;

fn row_base(row: u32, K: u32) -> u32 {
    return row * (K / BS) * TS;
}

fn dq(rb: u32, e: u32) -> f32 {
    let b = rb + (e / BS) * TS;
    let i = e % BS;
    let q = (rd8(b + 4u + (i & 15u)) >> ((i >> 4u) << 2u)) & 15u;
    return rdh(b) * f32(q) + rdh(b + 2u);
}

fn udot(rb: u32, u: u32, xs: ptr<function, array<vec4<f32>, 8>>, sx: f32) -> f32 {
    let b = rb + u * TS;
    let dm = h2f(rd32(b));
    let q = rd4x(b + 4u);
    var s = 0.0;
    for (var k = 0u; k < 4u; k++) {
        s += dot(nib_lo(q[k]), (*xs)[k]) + dot(nib_hi(q[k]), (*xs)[4u + k]);
    }
    return dm.x * K255 * s + dm.y * sx;
}
