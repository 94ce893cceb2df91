// q5_K: 256 elements in 176 bytes: d, dmin, scales[12], qh[32], qs[128].
// Element e: c = e/64, r = e%64, l = r%32; nibble of qs[32c + l] (low if r < 32) plus 16 when
// bit 2c + r/32 of qh[l] is set; value d * sc * q - dmin * m as in q4_K.
const BS: u32 = 256u;
const TS: u32 = 176u;

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
    let l = r & 31u;
    let sub = (c << 1u) + (r >> 5u);
    let sm = scale_min_k4(b + 4u, sub);
    let lo = (rd8(b + 48u + (c << 5u) + l) >> ((r >> 5u) << 2u)) & 15u;
    let hb = (rd8(b + 16u + l) >> sub) & 1u;
    return rdh(b) * sm.x * f32(lo | (hb << 4u)) - rdh(b + 2u) * sm.y;
}

// As q4_K, plus 16 where bit s of the qh byte of that element is set.
fn udot(rb: u32, u: u32, xs: ptr<function, array<vec4<f32>, 8>>, sx: f32) -> f32 {
    let b = rb + (u >> 3u) * TS;
    let s = u & 7u;
    let sh = (s & 1u) << 2u;
    let q0 = rd4x(b + 48u + ((s >> 1u) << 5u));
    let q1 = rd4x(b + 64u + ((s >> 1u) << 5u));
    let h0 = rd4x(b + 16u);
    let h1 = rd4x(b + 32u);
    var a = 0.0;
    for (var k = 0u; k < 4u; k++) {
        a += dot(ub(bfield(q0[k], sh, 0x0f0f0f0fu) | (bfield(h0[k], s, 0x01010101u) << 4u)), (*xs)[k]);
        a += dot(ub(bfield(q1[k], sh, 0x0f0f0f0fu) | (bfield(h1[k], s, 0x01010101u) << 4u)), (*xs)[4u + k]);
    }
    let dm = h2f(rd32(b));
    let sm = scale_min_k4(b + 4u, s);
    return dm.x * sm.x * K255 * a - dm.y * sm.y * sx;
}
