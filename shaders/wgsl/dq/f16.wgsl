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

// Unit u (32 elements, 4 vectors) · xs, for the fused QKV matvec (K % 32
// == 0): four 16-byte loads (wvec4; one each where the binding is
// vec4-typed, as matvec_qkv binds plain formats) rather than 16 word loads.
fn udot(rb: u32, u: u32, xs: ptr<function, array<vec4<f32>, 8>>, sx: f32) -> f32 {
    let i = (rb + 32u * u) >> 3u;
    var s = 0.0;
    for (var k = 0u; k < 4u; k++) {
        s += vdot(wvec4(i + k), (*xs)[2u * k], (*xs)[2u * k + 1u]);
    }
    return s;
}
