// q4_K: 256 elements in 144 bytes: d, dmin, scales[12] (8 packed 6-bit scale/min pairs), qs[128].
// Element e: chunk c = e/64, r = e%64; nibble (low if r < 32) of qs[32c + r%32];
// sub-block 2c + r/32; value d * sc * q - dmin * m.
const BS: u32 = 256u;
const TS: u32 = 144u;

// ggml's get_scale_min_k4 on the 12 scale bytes at s: (scale, min) of sub-block j.
fn scale_min_k4(s: u32, j: u32) -> vec2<f32> {
    if (j < 4u) {
        return vec2<f32>(f32(rd8(s + j) & 63u), f32(rd8(s + j + 4u) & 63u));
    }
    let sc = (rd8(s + j + 4u) & 15u) | ((rd8(s + j - 4u) >> 6u) << 4u);
    let m = (rd8(s + j + 4u) >> 4u) | ((rd8(s + j) >> 6u) << 4u);
    return vec2<f32>(f32(sc), f32(m));
}

fn row_base(row: u32, K: u32) -> u32 {
    return row * (K / BS) * TS;
}

fn dq(rb: u32, e: u32) -> f32 {
    let b = rb + (e / BS) * TS;
    let i = e % BS;
    let c = i >> 6u;
    let r = i & 63u;
    let sm = scale_min_k4(b + 4u, (c << 1u) + (r >> 5u));
    let q = (rd8(b + 16u + (c << 5u) + (r & 31u)) >> ((r >> 5u) << 2u)) & 15u;
    return rdh(b) * sm.x * f32(q) - rdh(b + 2u) * sm.y;
}

// Unit u is sub-block s = u % 8: nibble (s & 1) of the 32 qs bytes of chunk s / 2.
fn udot(rb: u32, u: u32, xs: ptr<function, array<vec4<f32>, 8>>, sx: f32) -> f32 {
    let b = rb + (u >> 3u) * TS;
    let s = u & 7u;
    let sh = (s & 1u) << 2u;
    // Blocks are 144 bytes (9 vectors) and rows whole blocks, so the header
    // (d, dmin, 12 scale bytes) is one aligned vector and the quants are
    // 16-byte aligned: three vector reads per unit, where rd4x's misaligned
    // path took five words and a funnel shift per 16 bytes and the scale
    // decoding two to four more byte reads.
    let v = (b >> 4u);
    let hd = wvec4(v);
    let q0 = wvec4(v + 1u + (s >> 1u) * 2u);
    let q1 = wvec4(v + 2u + (s >> 1u) * 2u);
    // Lanes as in bits.wgsl's q4dot: each nibble masked in place (bits 0
    // and 8 of the word and of the word >> 16, 4 higher for the high
    // nibbles of odd sub-blocks) under the exponent that makes its float
    // 2^(23-pos) + q; one logic op and an FADD a lane, no shift.
    let odd = sh != 0u;
    let mk = select(vec4<u32>(0xfu, 0xf00u, 0xfu, 0xf00u), vec4<u32>(0xf0u, 0xf000u, 0xf0u, 0xf000u), odd);
    let ex = select(vec4<u32>(0x4b000000u, 0x47000000u, 0x4b000000u, 0x47000000u),
                    vec4<u32>(0x49000000u, 0x45000000u, 0x49000000u, 0x45000000u), odd);
    let o = bitcast<vec4<f32>>(ex);
    var acc = vec4<f32>(0.0);
    for (var k = 0u; k < 4u; k++) {
        let a0 = vec4<u32>(q0[k], q0[k], q0[k] >> 16u, q0[k] >> 16u);
        let a1 = vec4<u32>(q1[k], q1[k], q1[k] >> 16u, q1[k] >> 16u);
        acc = fma(bitcast<vec4<f32>>((a0 & mk) | ex) - o, (*xs)[k], acc);
        acc = fma(bitcast<vec4<f32>>((a1 & mk) | ex) - o, (*xs)[4u + k], acc);
    }
    let a = hsum(acc);
    // scale_min_k4 on the header's scale words: bytes 0-3 (hd.y), 4-7
    // (hd.z) and 8-11 (hd.w). Sub-blocks 0-3: the low 6 bits of byte s of
    // hd.y (scale) and hd.z (min); 4-7: the nibbles of byte s-4 of hd.w, with
    // bits 6-7 of byte s-4 of hd.y and hd.z on top.
    let r = (s & 3u) << 3u;
    let ls = hd.y >> r;
    let lm = hd.z >> r;
    let hw = hd.w >> r;
    let hi = s >= 4u;
    let sc = select(ls & 63u, (hw & 15u) | ((ls >> 2u) & 0x30u), hi);
    let m = select(lm & 63u, ((hw >> 4u) & 15u) | ((lm >> 2u) & 0x30u), hi);
    let dm = h2f(hd.x);
    return dm.x * f32(sc) * K255 * a - dm.y * f32(m) * sx;
}
