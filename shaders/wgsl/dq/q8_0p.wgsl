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

// Block u's chunk: its start c, its place j in the chunk and the chunk's
// block count n.
fn pk_c(rb: u32, u: u32) -> vec3<u32> {
    if (RAGGED) {
        if (u < 4u) {
            return vec3<u32>(rb, u, 4u);
        }
        return vec3<u32>(rb + 136u + ((u - 4u) >> 3u) * 272u, (u - 4u) & 7u, 8u);
    }
    return vec3<u32>(rb + (u >> 3u) * 272u, u & 7u, 8u);
}

// The byte offsets of block u's low quant bytes (its high ones are 16·n
// further) and of its scale.
fn pk_q(rb: u32, u: u32) -> u32 {
    let c = pk_c(rb, u);
    return c.x + ((16u - (c.x & 15u)) & 15u) + c.y * 16u;
}

fn pk_hi(rb: u32, u: u32) -> u32 {
    return pk_q(rb, u) + pk_c(rb, u).z * 16u;
}

fn pk_s(rb: u32, u: u32) -> u32 {
    let c = pk_c(rb, u);
    let l = (16u - (c.x & 15u)) & 15u;
    return c.x + c.y * 2u + select(c.z * 32u, 0u, c.y * 2u < l);
}

fn dq(rb: u32, e: u32) -> f32 {
    let u = e / BS;
    let i = e % BS;
    return rdh(pk_s(rb, u)) * f32(rd8s(pk_q(rb, u) + (i >> 4u) * pk_c(rb, u).z * 16u + (i & 15u)));
}

// Block u · xs: d Σ q x (q8dot, bits.wgsl; sx is not needed).
fn udot(rb: u32, u: u32, xs: ptr<function, array<vec4<f32>, 8>>, sx: f32) -> f32 {
    let q = pk_q(rb, u);
    return rdh(pk_s(rb, u)) * q8dot(wvec4(q >> 4u), wvec4((q + pk_c(rb, u).z * 16u) >> 4u), xs);
}
