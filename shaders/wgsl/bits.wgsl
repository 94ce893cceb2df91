// Lane extraction for the matvec unit dots: a u32 holds four bytes, byte i
// feeding lane i of a vec4 that is dotted with four consecutive x values.
// Bytes become floats through unpack4x8unorm (one conversion per byte, no
// per-lane shifts) as b/255: the unit dots sum these and scale the sum by
// 255 once (K255) instead of every lane (b/255 rounded costs at most 1 ulp).

const K255: f32 = 255.0;

fn ub(v: u32) -> vec4<f32> {
    return unpack4x8unorm(v);
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
