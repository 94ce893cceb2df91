// f32 weights: row base and offsets count elements (one per u32).
fn row_base(row: u32, K: u32) -> u32 {
    return row * K;
}

fn dq(rb: u32, e: u32) -> f32 {
    return bitcast<f32>(wword(rb + e));
}

// Elements per 16-byte vec4<u32> load (matvec's coalesced plain path).
const EPV: u32 = 4u;

// One vec4<u32> of weights (4 elements) dotted with x0 (x1 unused).
fn vdot(q: vec4<u32>, x0: vec4<f32>, x1: vec4<f32>) -> f32 {
    return dot(bitcast<vec4<f32>>(q), x0);
}

// Unit u (elements 32u..32u+31) · xs, for the fused QKV matvec (K % 32 ==
// 0), through 16-byte loads as f16's.
fn udot(rb: u32, u: u32, xs: ptr<function, array<vec4<f32>, 8>>, sx: f32) -> f32 {
    let i = (rb + 32u * u) >> 2u;
    var s = 0.0;
    for (var k = 0u; k < 8u; k++) {
        s += vdot(wvec4(i + k), (*xs)[k], vec4<f32>(0.0));
    }
    return s;
}
