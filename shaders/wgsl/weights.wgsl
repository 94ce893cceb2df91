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

// 16 bytes at an even byte offset as four words. Branch-free, because
// neighbouring threads alternate between aligned and misaligned blocks
// (18-, 22-, 34-, 110- and 210-byte blocks) and a branch would make each warp
// run both paths: five loads and a funnel shift by sh = 0 or 16 bits, where
// (n << 1) << (31 - sh) is n << (32 - sh) without WGSL's modulo-32 shift
// count turning the aligned case into n << 0. The fifth load may be one word
// past the last block; WebGPU's robust access keeps it in bounds and an
// aligned block never uses it.
fn rd4x(b: u32) -> vec4<u32> {
    let i = b >> 2u;
    let sh = (b & 2u) << 3u;
    let a = vec4<u32>(wword(i), wword(i + 1u), wword(i + 2u), wword(i + 3u));
    let n = vec4<u32>(a.y, a.z, a.w, wword(i + 4u));
    return (a >> vec4<u32>(sh)) | ((n << vec4<u32>(1u)) << vec4<u32>(31u - sh));
}
