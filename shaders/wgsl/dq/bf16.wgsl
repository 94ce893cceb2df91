// bf16 weights, two per u32; a bf16 is the top half of an f32.
fn row_base(row: u32, K: u32) -> u32 {
    return row * K;
}

fn dq(rb: u32, e: u32) -> f32 {
    let i = rb + e;
    return bitcast<f32>(((wword(i >> 1u) >> ((i & 1u) << 4u)) & 0xffffu) << 16u);
}

const EPV: u32 = 8u;

fn vdot(q: vec4<u32>, x0: vec4<f32>, x1: vec4<f32>) -> f32 {
    let lo = bitcast<vec4<f32>>(q << vec4<u32>(16u));
    let hi = bitcast<vec4<f32>>(q & vec4<u32>(0xffff0000u));
    return dot(vec4<f32>(lo.x, hi.x, lo.y, hi.y), x0) + dot(vec4<f32>(lo.z, hi.z, lo.w, hi.w), x1);
}

// Unit u (32 elements, 4 vectors) · xs, for the fused QKV matvec (K % 32
// == 0), through 16-byte loads as f16's.
fn udot(rb: u32, u: u32, xs: ptr<function, array<vec4<f32>, 8>>, sx: f32) -> f32 {
    let i = (rb + 32u * u) >> 3u;
    var s = 0.0;
    for (var k = 0u; k < 4u; k++) {
        s += vdot(wvec4(i + k), (*xs)[2u * k], (*xs)[2u * k + 1u]);
    }
    return s;
}
