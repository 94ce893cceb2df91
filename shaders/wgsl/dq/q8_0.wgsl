// q8_0: 32 elements in 34 bytes: d f16, qs i8[32]; q * d.
const BS: u32 = 32u;
const TS: u32 = 34u;

fn row_base(row: u32, K: u32) -> u32 {
    return row * (K / BS) * TS;
}

fn dq(rb: u32, e: u32) -> f32 {
    let b = rb + (e / BS) * TS;
    let i = e % BS;
    return rdh(b) * f32(rd8s(b + 2u + i));
}

fn udot(rb: u32, u: u32, xs: ptr<function, array<vec4<f32>, 8>>, sx: f32) -> f32 {
    let b = rb + u * TS;
    let q0 = rd4x(b + 2u);
    let q1 = rd4x(b + 18u);
    var s = 0.0;
    for (var k = 0u; k < 4u; k++) {
        // q + 128 as unsigned bytes; the 128 comes back out as 128·Σx.
        s += dot(ub(q0[k] ^ 0x80808080u), (*xs)[k]) + dot(ub(q1[k] ^ 0x80808080u), (*xs)[4u + k]);
    }
    return rdh(b) * (K255 * s - 128.0 * sx);
}
