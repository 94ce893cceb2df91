// f16 weights, two per u32 (low half first); offsets count elements.
fn row_base(row: u32, K: u32) -> u32 {
    return row * K;
}

fn dq(rb: u32, e: u32) -> f32 {
    let i = rb + e;
    let v = h2f(w[i >> 1u]);
    return select(v.x, v.y, (i & 1u) == 1u);
}

// Unit u (32 elements, 16 words; rb even because K is a multiple of 32) · xs.
fn udot(rb: u32, u: u32, xs: ptr<function, array<vec4<f32>, 8>>, sx: f32) -> f32 {
    let i = (rb + 32u * u) >> 1u;
    var s = 0.0;
    for (var k = 0u; k < 8u; k++) {
        let j = i + 2u * k;
        s += dot(vec4<f32>(h2f(w[j]), h2f(w[j + 1u])), (*xs)[k]);
    }
    return s;
}
