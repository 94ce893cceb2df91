// f32 weights: row base and offsets count elements (one per u32).
fn row_base(row: u32, K: u32) -> u32 {
    return row * K;
}

fn dq(rb: u32, e: u32) -> f32 {
    return bitcast<f32>(w[rb + e]);
}
