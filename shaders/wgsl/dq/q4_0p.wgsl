// q4_0, packed layout (pack.go): each chunk of n blocks (8, or the 4 of a
// ragged row's first chunk, RAGGED) holds the blocks' 16 quant bytes, 16-byte
// aligned (one vector load each), and their n f16 scales: L/2 scales first,
// where L pads the chunk start to 16 bytes (0 or 8: rows of K = 128 mod 256
// start 8 bytes off the grid every other row), then the quants, then the
// rest. The row base is ggml's.
const BS: u32 = 32u;
const TS: u32 = 18u;

fn row_base(row: u32, K: u32) -> u32 {
    return row * (K / BS) * TS;
}

// pk_c, pk_q and pk_s: dq/planes.wgsl.

fn dq(rb: u32, e: u32) -> f32 {
    let u = e / BS;
    let i = e % BS;
    let q = (rd8(pk_q(rb, u) + (i & 15u)) >> ((i >> 4u) << 2u)) & 15u;
    return rdh(pk_s(rb, u)) * (f32(q) - 8.0);
}

// Block u · xs: d Σ (q - 8) x (q4dot, bits.wgsl; sx is not needed).
fn udot(rb: u32, u: u32, xs: ptr<function, array<vec4<f32>, 8>>, sx: f32) -> f32 {
    return rdh(pk_s(rb, u)) * q4dot(wvec4(pk_q(rb, u) >> 4u), xs);
}
