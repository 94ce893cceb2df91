// bf16 weights, two per u32; a bf16 is the top half of an f32.
fn row_base(row: u32, K: u32) -> u32 {
    return row * K;
}

fn dq(rb: u32, e: u32) -> f32 {
    let i = rb + e;
    return bitcast<f32>(((w[i >> 1u] >> ((i & 1u) << 4u)) & 0xffffu) << 16u);
}

fn udot(rb: u32, u: u32, xs: ptr<function, array<vec4<f32>, 8>>, sx: f32) -> f32 {
    let i = (rb + 32u * u) >> 1u;
    var s = 0.0;
    for (var k = 0u; k < 8u; k++) {
        let a = w[i + 2u * k];
        let b = w[i + 2u * k + 1u];
        let v = bitcast<vec4<f32>>(vec4<u32>(a << 16u, a & 0xffff0000u, b << 16u, b & 0xffff0000u));
        s += dot(v, (*xs)[k]);
    }
    return s;
}
