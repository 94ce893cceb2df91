// q4_0, packed layout (pack.go): each chunk of 8 blocks (144 bytes) holds
// the 8 blocks' 16 quant bytes (16-byte aligned, one vector load each), then
// their 8 f16 scales. Rows hold whole chunks, so the row base is ggml's.
const BS: u32 = 32u;
const TS: u32 = 18u;

fn row_base(row: u32, K: u32) -> u32 {
    return row * (K / BS) * TS;
}

fn dq(rb: u32, e: u32) -> f32 {
    let u = e / BS;
    let c = rb + (u >> 3u) * 144u;
    let j = u & 7u;
    let i = e % BS;
    let q = (rd8(c + j * 16u + (i & 15u)) >> ((i >> 4u) << 2u)) & 15u;
    return rdh(c + 128u + j * 2u) * (f32(q) - 8.0);
}

// Block u · xs: d Σ (q - 8) x (q4dot, bits.wgsl; sx is not needed).
fn udot(rb: u32, u: u32, xs: ptr<function, array<vec4<f32>, 8>>, sx: f32) -> f32 {
    let c = rb + (u >> 3u) * 144u;
    let j = u & 7u;
    return rdh(c + 128u + j * 2u) * q4dot(wvec4((c + j * 16u) >> 4u), xs);
}
