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
