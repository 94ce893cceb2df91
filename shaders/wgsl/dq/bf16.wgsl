// bf16 weights, two per u32; a bf16 is the top half of an f32.
fn row_base(row: u32, K: u32) -> u32 {
    return row * K;
}

fn dq(rb: u32, e: u32) -> f32 {
    let i = rb + e;
    return bitcast<f32>(((w[i >> 1u] >> ((i & 1u) << 4u)) & 0xffffu) << 16u);
}
