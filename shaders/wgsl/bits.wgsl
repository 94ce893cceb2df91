// Lane extraction for the matvec unit dots: a u32 holds four bytes, byte i
// feeding lane i of a vec4 that is dotted with four consecutive x values.

const SH8 = vec4<u32>(0u, 8u, 16u, 24u);

// Low nibble of each byte.
fn nib_lo(v: u32) -> vec4<f32> {
    return vec4<f32>((vec4<u32>(v) >> SH8) & vec4<u32>(15u));
}

// High nibble of each byte.
fn nib_hi(v: u32) -> vec4<f32> {
    return vec4<f32>((vec4<u32>(v) >> (SH8 + vec4<u32>(4u))) & vec4<u32>(15u));
}

// Field of each byte at bit shift s, masked by m.
fn bfield(v: u32, s: u32, m: u32) -> vec4<u32> {
    return (vec4<u32>(v >> s) >> SH8) & vec4<u32>(m);
}

// Each byte as a signed int8.
fn sbytes(v: u32) -> vec4<f32> {
    return vec4<f32>(vec4<i32>(vec4<u32>(v) << vec4<u32>(24u, 16u, 8u, 0u)) >> vec4<u32>(24u));
}

// Bits 0..3 of v, one per lane.
fn bits4(v: u32) -> vec4<f32> {
    return vec4<f32>((vec4<u32>(v) >> vec4<u32>(0u, 1u, 2u, 3u)) & vec4<u32>(1u));
}

fn hsum(v: vec4<f32>) -> f32 {
    return v.x + v.y + v.z + v.w;
}
