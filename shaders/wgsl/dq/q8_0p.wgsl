// q8_0, packed layout (pack.go): each chunk of 8 blocks (272 bytes) holds
// the blocks' low 16 quant bytes, then their high 16 (each 16-byte aligned,
// so a warp's first and second loads each cover a contiguous run), then the
// 8 f16 scales. Rows hold whole chunks, so the row base is ggml's.
const BS: u32 = 32u;
const TS: u32 = 34u;

fn row_base(row: u32, K: u32) -> u32 {
    return row * (K / BS) * TS;
}

fn dq(rb: u32, e: u32) -> f32 {
    let u = e / BS;
    let c = rb + (u >> 3u) * 272u;
    let j = u & 7u;
    let i = e % BS;
    return rdh(c + 256u + j * 2u) * f32(rd8s(c + (i >> 4u) * 128u + j * 16u + (i & 15u)));
}

// Block u · xs: d Σ q x (q8dot, bits.wgsl; sx is not needed).
fn udot(rb: u32, u: u32, xs: ptr<function, array<vec4<f32>, 8>>, sx: f32) -> f32 {
    let c = rb + (u >> 3u) * 272u;
    let j = u & 7u;
    return rdh(c + 256u + j * 2u) * q8dot(wvec4((c + j * 16u) >> 4u), wvec4((c + 128u + j * 16u) >> 4u), xs);
}
