// Lane extraction for the matvec unit dots: a u32 holds four bytes, byte i
// feeding lane i of a vec4 that is dotted with four consecutive x values.
// Bytes become floats without a conversion instruction: OR-ing a value
// v < 2^23 into the mantissa of 2^23 (0x4b000000) gives the float 2^23 + v
// exactly, and subtracting 2^23 leaves v exactly. unpack4x8unorm (one
// integer-to-float conversion per byte, a slow instruction class on
// NVIDIA) was 0-6% slower on the H200 (q4_0 lm head 84.0 -> 79.3 µs, q4_K
// 139.9 -> 132.4). K255 is the scale of the lane values (1 now;
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

// Unit dots of the packed q4_0 and q8_0 layouts (pack.go) without a shift
// per lane: each lane's field is masked in place, at bit position s, and
// given the exponent that makes its float 2^(23-s) + v (v the field's
// value), so subtracting 2^(23-s) + bias leaves v - bias exactly. Only the
// upper half-word needs a shift (once per word). A lane is then one logic
// op ((a & m) | e, a LOP3 on NVIDIA), one FADD and one FMA, against a shift,
// a mask, an OR, an FADD and a dot lane before; the -8 (q4_0) and the +128
// of q8_0's unsigned bytes come out in the FADD, so no Σx correction.
//
// q4dot: Σ (q - 8)·x over a q4_0 unit whose quant word k holds bytes
// 4k..4k+3; the low nibble of byte i is element 4k+i, the high nibble
// element 16+4k+i; xs holds the unit's x as 8 vec4s.
fn q4dot(q: vec4<u32>, xs: ptr<function, array<vec4<f32>, 8>>) -> f32 {
    // Lanes (byte 0, byte 1, byte 2, byte 3): nibbles at bits 0, 8 of the
    // word and of the word >> 16; high nibbles 4 bits up.
    let mlo = vec4<u32>(0xfu, 0xf00u, 0xfu, 0xf00u);
    let elo = vec4<u32>(0x4b000000u, 0x47000000u, 0x4b000000u, 0x47000000u); // 2^23, 2^15
    let olo = vec4<f32>(8388616.0, 32776.0, 8388616.0, 32776.0); // + 8
    let mhi = vec4<u32>(0xf0u, 0xf000u, 0xf0u, 0xf000u);
    let ehi = vec4<u32>(0x49000000u, 0x45000000u, 0x49000000u, 0x45000000u); // 2^19, 2^11
    let ohi = vec4<f32>(524296.0, 2056.0, 524296.0, 2056.0);
    var s = vec4<f32>(0.0);
    for (var k = 0u; k < 4u; k++) {
        let a = vec4<u32>(q[k], q[k], q[k] >> 16u, q[k] >> 16u);
        s = fma(bitcast<vec4<f32>>((a & mlo) | elo) - olo, (*xs)[k], s);
        s = fma(bitcast<vec4<f32>>((a & mhi) | ehi) - ohi, (*xs)[4u + k], s);
    }
    return hsum(s);
}

// q8dot: Σ q·x over a q8_0 unit: q0 holds its signed quant bytes 0..15, q1
// bytes 16..31. (b & m) ^ e flips each byte's sign bit (b + 128, unsigned)
// and sets the exponent in one logic op.
fn q8dot(q0: vec4<u32>, q1: vec4<u32>, xs: ptr<function, array<vec4<f32>, 8>>) -> f32 {
    let m = vec4<u32>(0xffu, 0xff00u, 0xffu, 0xff00u);
    let e = vec4<u32>(0x4b000080u, 0x47008000u, 0x4b000080u, 0x47008000u);
    let o = vec4<f32>(8388736.0, 32896.0, 8388736.0, 32896.0); // 2^23 + 128, 2^15 + 128
    var s = vec4<f32>(0.0);
    for (var k = 0u; k < 4u; k++) {
        let a = vec4<u32>(q0[k], q0[k], q0[k] >> 16u, q0[k] >> 16u);
        let b = vec4<u32>(q1[k], q1[k], q1[k] >> 16u, q1[k] >> 16u);
        s = fma(bitcast<vec4<f32>>((a & m) ^ e) - o, (*xs)[k], s);
        s = fma(bitcast<vec4<f32>>((b & m) ^ e) - o, (*xs)[4u + k], s);
    }
    return hsum(s);
}
