// The packed byte-plane layout's chunk walk (pack.go), shared by q4_0p and
// q8_0p (TS their block size, its first 2 bytes the f16 scale, the rest
// TS-2 quant bytes in 16-byte planes): chunks of 8 blocks, or with RAGGED
// a first chunk of 4; a chunk puts lead/2 scales first, lead the bytes
// from its start to the 16-byte grid (0 or 8), then its quant planes, then
// the other scales.

// Block u's chunk: its start c, its place j in the chunk and the chunk's
// block count n.
fn pk_c(rb: u32, u: u32) -> vec3<u32> {
    if (RAGGED) {
        if (u < 4u) {
            return vec3<u32>(rb, u, 4u);
        }
        return vec3<u32>(rb + 4u * TS + ((u - 4u) >> 3u) * 8u * TS, (u - 4u) & 7u, 8u);
    }
    return vec3<u32>(rb + (u >> 3u) * 8u * TS, u & 7u, 8u);
}

// The lead of the chunk starting at byte c.
fn pk_lead(c: u32) -> u32 {
    return (16u - (c & 15u)) & 15u;
}

// The byte offset of block u's first quant plane (the next plane, q8_0's
// high bytes, is 16·n further).
fn pk_q(rb: u32, u: u32) -> u32 {
    let c = pk_c(rb, u);
    return c.x + pk_lead(c.x) + c.y * 16u;
}

// The byte offset of block u's scale.
fn pk_s(rb: u32, u: u32) -> u32 {
    let c = pk_c(rb, u);
    return c.x + c.y * 2u + select(c.z * (TS - 2u), 0u, c.y * 2u < pk_lead(c.x));
}
