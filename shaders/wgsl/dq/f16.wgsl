// f16 weights, two per u32 (low half first); offsets count elements.
fn row_base(row: u32, K: u32) -> u32 {
    return row * K;
}

fn dq(rb: u32, e: u32) -> f32 {
    let i = rb + e;
    let v = h2f(wword(i >> 1u));
    return select(v.x, v.y, (i & 1u) == 1u);
}

const EPV: u32 = 8u;

// One vec4<u32> of weights (8 elements) dotted with x0, x1.
fn vdot(q: vec4<u32>, x0: vec4<f32>, x1: vec4<f32>) -> f32 {
    return dot(vec4<f32>(h2f(q.x), h2f(q.y)), x0) + dot(vec4<f32>(h2f(q.z), h2f(q.w)), x1);
}

// Unit u (32 elements, 16 words) · xs, for the fused QKV matvec (K % 32 == 0).
fn udot(rb: u32, u: u32, xs: ptr<function, array<vec4<f32>, 8>>, sx: f32) -> f32 {
    let i = (rb + 32u * u) >> 1u;
    var s = 0.0;
    for (var k = 0u; k < 8u; k++) {
        let j = i + 2u * k;
        s += dot(vec4<f32>(h2f(wword(j)), h2f(wword(j + 1u))), (*xs)[k]);
    }
    return s;
}
