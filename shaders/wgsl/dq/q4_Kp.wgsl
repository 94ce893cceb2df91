// q4_K, packed layout (pack.go): each chunk of 8 blocks (1152 bytes) holds
// per 32-element unit U (8·block + sub-block) its 32 nibbles as 16 bytes at
// 16U (byte i: element i low nibble, 16 + i high, as packed q4_0; one
// aligned vector load, consecutive units consecutive vectors), then the
// blocks' 16-byte headers (f16 d, f16 dmin, the 12 scale bytes in ggml
// order) at 1024 + 16·block. Rows hold whole chunks, so the row base is
// ggml's. (Only literals here: the QKV kernel renames the helpers.)
//
// Rows of K not a multiple of 2048 are not packed (Packable) and may share
// a Key.Packed QKV kernel with packed q4_0/q8_0 matrices, so udot reads
// them in ggml order (dq/q4_K.wgsl): a branch on the kernel's uniform p.K.
// dq needs none (get_rows and matmul bind one weight).
const BS: u32 = 256u;
const TS: u32 = 144u;

// ggml's get_scale_min_k4 from the header's scale words (bytes 0-3, 4-7,
// 8-11 of the 12): (scale, min) of sub-block s.
fn scale_min_k4(sy: u32, sz: u32, sw: u32, s: u32) -> vec2<f32> {
    let r = (s & 3u) << 3u;
    let ls = sy >> r;
    let lm = sz >> r;
    let hw = sw >> r;
    let hi = s >= 4u;
    let sc = select(ls & 63u, (hw & 15u) | ((ls >> 2u) & 0x30u), hi);
    let m = select(lm & 63u, ((hw >> 4u) & 15u) | ((lm >> 2u) & 0x30u), hi);
    return vec2<f32>(f32(sc), f32(m));
}

fn row_base(row: u32, K: u32) -> u32 {
    return row * (K / BS) * TS;
}

fn dq(rb: u32, e: u32) -> f32 {
    let u = e >> 5u;
    let c = rb + (u >> 6u) * 1152u;
    let j = u & 63u;
    let l = e & 31u;
    let q = (rd8(c + j * 16u + (l & 15u)) >> ((l >> 4u) << 2u)) & 15u;
    let h = c + 1024u + (j >> 3u) * 16u;
    let sm = scale_min_k4(wword((h >> 2u) + 1u), wword((h >> 2u) + 2u), wword((h >> 2u) + 3u), j & 7u);
    let dm = h2f(wword(h >> 2u));
    return dm.x * sm.x * f32(q) - dm.y * sm.y;
}

fn udot(rb: u32, u: u32, xs: ptr<function, array<vec4<f32>, 8>>, sx: f32) -> f32 {
    var a = 0.0;
    var hd: vec4<u32>;
    if ((p.K & 2047u) != 0u) { // ggml order (dq/q4_K.wgsl)
        let v = (rb + (u >> 3u) * TS) >> 4u;
        let sh = (u & 1u) << 2u;
        hd = wvec4(v);
        let q0 = wvec4(v + 1u + ((u & 7u) >> 1u) * 2u);
        let q1 = wvec4(v + 2u + ((u & 7u) >> 1u) * 2u);
        for (var k = 0u; k < 4u; k++) {
            a += dot(ub(bfield(q0[k], sh, 0x0f0f0f0fu)), (*xs)[k]) + dot(ub(bfield(q1[k], sh, 0x0f0f0f0fu)), (*xs)[4u + k]);
        }
    } else {
        let c = (rb >> 4u) + (u >> 6u) * 72u; // in vectors
        let j = u & 63u;
        let q = wvec4(c + j);
        hd = wvec4(c + 64u + (j >> 3u));
        for (var k = 0u; k < 4u; k++) {
            a += dot(nib_lo(q[k]), (*xs)[k]) + dot(nib_hi(q[k]), (*xs)[4u + k]);
        }
    }
    let sm = scale_min_k4(hd.y, hd.z, hd.w, u & 7u);
    let dm = h2f(hd.x);
    return dm.x * sm.x * K255 * a - dm.y * sm.y * sx;
}
