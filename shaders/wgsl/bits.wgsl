// Lane extraction for the matvec unit dots: a u32 holds four bytes, byte i
// feeding lane i of a vec4 that is dotted with four consecutive x values.
// Bytes become floats without a conversion instruction: OR-ing a value
// v < 2^23 into the mantissa of 2^23 (0x4b000000) gives the float 2^23 + v
// exactly, and subtracting 2^23 leaves v exactly. unpack4x8unorm (one
// integer-to-float conversion per byte, a slow instruction class on
// NVIDIA) was 0-6% slower on the H200 (q4_0 lm head 84.0 -> 79.3 µs, q4_K
// 139.9 -> 132.4; BENCH.md). K255 is the scale of the lane values (1 now;
// 255 when lanes were unorm bytes), kept so the unit dots read the same.

const K255: f32 = 1.0;

fn ub(v: u32) -> vec4<f32> {
    let b = (vec4<u32>(v) >> vec4<u32>(0u, 8u, 16u, 24u)) & vec4<u32>(0xffu);
    return bitcast<vec4<f32>>(b | vec4<u32>(0x4b000000u)) - vec4<f32>(8388608.0);
}

// Low and high nibble of each byte.
fn nib_lo(v: u32) -> vec4<f32> {
    return ub(v & 0x0f0f0f0fu);
}

fn nib_hi(v: u32) -> vec4<f32> {
    return ub((v >> 4u) & 0x0f0f0f0fu);
}

// Field of each byte at bit shift s (s + width <= 8), masked per byte by m
// (a byte-replicated mask such as 0x03030303), still packed.
fn bfield(v: u32, s: u32, m: u32) -> u32 {
    return (v >> s) & m;
}

// Bits 0..3 of v spread to bit 0 of bytes 0..3 (multiplying by 0x204081
// places copies at bits 0, 7, 14, 21, which never overlap for 4-bit v).
fn spread4(v: u32) -> u32 {
    return ((v & 15u) * 0x204081u) & 0x01010101u;
}

fn hsum(v: vec4<f32>) -> f32 {
    return v.x + v.y + v.z + v.w;
}
