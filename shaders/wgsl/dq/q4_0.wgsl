// q4_0: 32 elements in 18 bytes: d f16, qs[16]; (q - 8) * d. Offsets are bytes.
const BS: u32 = 32u;
const TS: u32 = 18u;

fn row_base(row: u32, K: u32) -> u32 {
    return row * (K / BS) * TS;
}

fn dq(rb: u32, e: u32) -> f32 {
    let b = rb + (e / BS) * TS;
    let i = e % BS;
    let q = (rd8(b + 2u + (i & 15u)) >> ((i >> 4u) << 2u)) & 15u;
    return rdh(b) * (f32(q) - 8.0);
}

// Block u · xs: Σ (q - 8) d x = d (Σ q x - 8 Σ x).
fn udot(rb: u32, u: u32, xs: ptr<function, array<vec4<f32>, 8>>, sx: f32) -> f32 {
    let b = rb + u * TS;
    let q = rd4x(b + 2u);
    var s = 0.0;
    for (var k = 0u; k < 4u; k++) {
        s += dot(nib_lo(q[k]), (*xs)[k]) + dot(nib_hi(q[k]), (*xs)[4u + k]);
    }
    return rdh(b) * (K255 * s - 8.0 * sx);
}
