// Byte-addressed reads of weight data (ggml blocks of 18, 22 or 34 bytes are
// not 4-byte aligned, so a block may start mid-word). Word i of the weights
// comes from wword(i), which each kernel defines: straight from the binding
// w, or from a copy staged in workgroup memory (matvec). SwiGLU's up matrix
// gets a renamed copy of these helpers reading wword_u.

fn rd8(b: u32) -> u32 {
    return (wword(b >> 2u) >> ((b & 3u) << 3u)) & 0xffu;
}

// Signed byte.
fn rd8s(b: u32) -> i32 {
    return (i32(rd8(b)) << 24u) >> 24u;
}

// 16-bit value at an even byte offset (never straddles a word).
fn rd16(b: u32) -> u32 {
    return (wword(b >> 2u) >> ((b & 2u) << 3u)) & 0xffffu;
}

// 32-bit value at an even byte offset: one load when aligned, two halves otherwise.
fn rd32(b: u32) -> u32 {
    if ((b & 3u) == 0u) {
        return wword(b >> 2u);
    }
    return rd16(b) | (rd16(b + 2u) << 16u);
}

// f16 at an even byte offset, as f32.
fn rdh(b: u32) -> f32 {
    return h2f(rd16(b)).x;
}

// 16 bytes at an even byte offset as four words: aligned loads, plus a
// funnel shift across five words when the offset is 2 mod 4 (18-, 22-, 34-,
// 110- and 210-byte blocks). The fifth load may be one word past a
// misaligned block's end; WebGPU's robust access keeps it in bounds and
// its bytes are never used.
fn rd4x(b: u32) -> vec4<u32> {
    let i = b >> 2u;
    let a = vec4<u32>(wword(i), wword(i + 1u), wword(i + 2u), wword(i + 3u));
    if ((b & 2u) == 0u) {
        return a;
    }
    let n = vec4<u32>(a.y, a.z, a.w, wword(i + 4u));
    return (a >> vec4<u32>(16u)) | (n << vec4<u32>(16u));
}
