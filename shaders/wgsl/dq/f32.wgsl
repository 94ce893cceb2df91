// f32 weights: row base and offsets count elements (one per u32).
fn row_base(row: u32, K: u32) -> u32 {
    return row * K;
}

fn dq(rb: u32, e: u32) -> f32 {
    return bitcast<f32>(w[rb + e]);
}

// Unit u (elements 32u..32u+31) of the row dotted with xs; sx = Σ xs (unused here).
fn udot(rb: u32, u: u32, xs: ptr<function, array<vec4<f32>, 8>>, sx: f32) -> f32 {
    let i = rb + 32u * u;
    var s = 0.0;
    for (var k = 0u; k < 8u; k++) {
        let j = i + 4u * k;
        s += dot(bitcast<vec4<f32>>(vec4<u32>(w[j], w[j + 1u], w[j + 2u], w[j + 3u])), (*xs)[k]);
    }
    return s;
}
