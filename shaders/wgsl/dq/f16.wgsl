// f16 weights, two per u32 (low half first); offsets count elements.
fn row_base(row: u32, K: u32) -> u32 {
    return row * K;
}

fn dq(rb: u32, e: u32) -> f32 {
    let i = rb + e;
    let v = h2f(w[i >> 1u]);
    return select(v.x, v.y, (i & 1u) == 1u);
}
