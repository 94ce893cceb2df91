// q8_0, packed layout (pack.go): each chunk of n blocks (8, or the 4 of a
// ragged row's first chunk, RAGGED) holds the blocks' low 16 quant bytes,
// then their high 16 (each 16-byte aligned, so a warp's first and second
// loads each cover a contiguous run), and their n f16 scales: L/2 scales
// first, where L pads the chunk start to 16 bytes (0 or 8: rows of K = 128
// mod 256 start 8 bytes off the grid every other row), then the quant
// planes, then the rest. The row base is ggml's.
const BS: u32 = 32u;
const TS: u32 = 34u;

fn row_base(row: u32, K: u32) -> u32 {
    return row * (K / BS) * TS;
}

// pk_c, pk_q and pk_s: dq/planes.wgsl. Block u's high quant bytes are the
// second plane, 16·n bytes after its low ones.
fn pk_hi(rb: u32, u: u32) -> u32 {
    return pk_q(rb, u) + pk_c(rb, u).z * 16u;
}

fn dq(rb: u32, e: u32) -> f32 {
    let u = e / BS;
    let i = e % BS;
    return rdh(pk_s(rb, u)) * f32(rd8s(select(pk_q(rb, u), pk_hi(rb, u), i >= 16u) + (i & 15u)));
}

// Block u · xs: d Σ q x (q8dot, bits.wgsl; sx is not needed).
fn udot(rb: u32, u: u32, xs: ptr<function, array<vec4<f32>, 8>>, sx: f32) -> f32 {
    return rdh(pk_s(rb, u)) * q8dot(wvec4(pk_q(rb, u) >> 4u), wvec4(pk_hi(rb, u) >> 4u), xs);
}
