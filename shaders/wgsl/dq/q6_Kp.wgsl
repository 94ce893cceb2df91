// q6_K, packed layout (pack.go): each chunk of 8 blocks (1680 bytes, a
// multiple of 16) holds per 32-element unit U (8·block + sub-block) its low
// 4 bits as 16 bytes at 16U (byte i: element i low nibble, 16 + i high; one
// aligned vector load), its high 2 bits as 8 bytes at 1024 + 8U (word h:
// elements 16h..16h+15, element 16h + 4k + j at byte j, bits 2k), its two
// int8 scales at 1536 + 2U, and the blocks' f16 d at 1664 + 2·block. Rows
// hold whole chunks, so the row base is ggml's. (Only literals here: the
// QKV kernel renames the helpers per matrix, not new constants.)
//
// Rows of K not a multiple of 2048 (8 blocks) are not packed (Packable),
// and the formats packed at such K (q4_0, q8_0: 8 blocks are 256 elements)
// may share a Key.Packed QKV kernel with them (q8_0 Q and K, q6_K V), so
// there udot reads such rows in ggml order: a branch on the kernel's
// uniform p.K, the same for all threads, kept only in such kernels
// (pack.go readerSource cuts the marked lines). dq needs none: the kernels
// that use it (get_rows, matmul) bind one weight, and Key.Packed says
// whether that one is packed.
const BS: u32 = 256u;
const TS: u32 = 210u;

fn row_base(row: u32, K: u32) -> u32 {
    return row * (K / BS) * TS;
}

fn dq(rb: u32, e: u32) -> f32 {
    let u = e >> 5u;
    let c = rb + (u >> 6u) * 1680u;
    let j = u & 63u;
    let l = e & 31u;
    let lo = (rd8(c + j * 16u + (l & 15u)) >> ((l >> 4u) << 2u)) & 15u;
    let hi = (rd8(c + 1024u + j * 8u + ((l >> 4u) << 2u) + (l & 3u)) >> (((l >> 2u) & 3u) << 1u)) & 3u;
    let sc = rd8s(c + 1536u + j * 2u + (l >> 4u));
    return rdh(c + 1664u + (j >> 3u) * 2u) * f32(sc) * (f32(lo | (hi << 4u)) - 32.0);
}

// Unit u: Σ d·sc_h·(q - 32)·x over the halves h = 0, 1 (16 elements each).
fn udot(rb: u32, u: u32, xs: ptr<function, array<vec4<f32>, 8>>, sx: f32) -> f32 {
    // {ggml-order rows
    if ((p.K & 2047u) != 0u) { // ggml order (dq/q6_K.wgsl)
        let b = rb + (u >> 3u) * TS;
        let s = u & 7u;
        let n = s >> 2u;
        let g = s & 3u;
        let lo = b + (n << 6u) + ((g & 1u) << 5u);
        let l0 = rd4x(lo);
        let l1 = rd4x(lo + 16u);
        let h0 = rd4x(b + 128u + (n << 5u));
        let h1 = rd4x(b + 144u + (n << 5u));
        let ls = (g >> 1u) << 2u;
        var s0 = 0.0;
        var s1 = 0.0;
        var x0 = vec4<f32>(0.0);
        for (var k = 0u; k < 4u; k++) {
            s0 += dot(ub(bfield(l0[k], ls, 0x0f0f0f0fu) | (bfield(h0[k], g << 1u, 0x03030303u) << 4u)), (*xs)[k]);
            s1 += dot(ub(bfield(l1[k], ls, 0x0f0f0f0fu) | (bfield(h1[k], g << 1u, 0x03030303u) << 4u)), (*xs)[4u + k]);
            x0 += (*xs)[k];
        }
        let sx0 = hsum(x0);
        let sc = b + 192u + (n << 3u) + (g << 1u);
        return rdh(b + 208u) * (f32(rd8s(sc)) * (K255 * s0 - 32.0 * sx0) + f32(rd8s(sc + 1u)) * (K255 * s1 - 32.0 * (sx - sx0)));
    }
    // ggml-order rows}
    let c = rb + (u >> 6u) * 1680u;
    let j = u & 63u;
    let ql = wvec4((c >> 4u) + j);
    let hv = wvec4((c + 1024u) / 16u + (j >> 1u));
    let odd = (j & 1u) == 1u;
    let h0 = select(hv.x, hv.z, odd);
    let h1 = select(hv.y, hv.w, odd);
    // Each byte's 6-bit q (low nibble | high pair << 4), then lanes as in
    // bits.wgsl's q4dot: masked in place under the exponent that makes the
    // float 2^(23-pos) + q, the -32 folded into the FADD.
    let m = vec4<u32>(0x3fu, 0x3f00u, 0x3fu, 0x3f00u);
    let ex = vec4<u32>(0x4b000000u, 0x47000000u, 0x4b000000u, 0x47000000u);
    let o = vec4<f32>(8388640.0, 32800.0, 8388640.0, 32800.0); // 2^23 + 32, 2^15 + 32
    var s0 = vec4<f32>(0.0);
    var s1 = vec4<f32>(0.0);
    for (var k = 0u; k < 4u; k++) {
        let w0 = (ql[k] & 0x0f0f0f0fu) | (((h0 >> (2u * k)) << 4u) & 0x30303030u);
        let w1 = ((ql[k] >> 4u) & 0x0f0f0f0fu) | (((h1 >> (2u * k)) << 4u) & 0x30303030u);
        let a0 = vec4<u32>(w0, w0, w0 >> 16u, w0 >> 16u);
        let a1 = vec4<u32>(w1, w1, w1 >> 16u, w1 >> 16u);
        s0 = fma(bitcast<vec4<f32>>((a0 & m) | ex) - o, (*xs)[k], s0);
        s1 = fma(bitcast<vec4<f32>>((a1 & m) | ex) - o, (*xs)[4u + k], s1);
    }
    let sc = rd16(c + 1536u + j * 2u);
    let sc0 = f32((i32(sc) << 24u) >> 24u);
    let sc1 = f32((i32(sc) << 16u) >> 24u);
    return rdh(c + 1664u + (j >> 3u) * 2u) * (sc0 * hsum(s0) + sc1 * hsum(s1));
}
