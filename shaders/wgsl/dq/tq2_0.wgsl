// tq2_0: 256 elements in 66 bytes: qs[64], d f16. Element e: half h = e/128,
// l = (e%128)/32, m = e%32; q = bits 2l..2l+1 of qs[32h + m]; value (q - 1) * d.
const BS: u32 = 256u;
const TS: u32 = 66u;

fn row_base(row: u32, K: u32) -> u32 {
    return row * (K / BS) * TS;
}

fn dq(rb: u32, e: u32) -> f32 {
    let b = rb + (e / BS) * TS;
    let i = e % BS;
    let q = (rd8(b + ((i >> 7u) << 5u) + (i & 31u)) >> (((i >> 5u) & 3u) << 1u)) & 3u;
    return rdh(b + 64u) * (f32(q) - 1.0);
}

// Unit u is s = u % 8 (h = s/4, l = s%4) of block u / 8: the 32 bytes of half
// h at shift 2l; Σ (q - 1)·x = Σ q·x - Σ x.
fn udot(rb: u32, u: u32, xs: ptr<function, array<vec4<f32>, 8>>, sx: f32) -> f32 {
    let b = rb + (u >> 3u) * TS;
    let s = u & 7u;
    let sh = (s & 3u) << 1u;
    let q0 = rd4x(b + ((s >> 2u) << 5u));
    let q1 = rd4x(b + ((s >> 2u) << 5u) + 16u);
    var acc = 0.0;
    for (var k = 0u; k < 4u; k++) {
        acc += dot(ub(bfield(q0[k], sh, 0x03030303u)), (*xs)[k]);
        acc += dot(ub(bfield(q1[k], sh, 0x03030303u)), (*xs)[4u + k]);
    }
    return rdh(b + 64u) * (K255 * acc - sx);
}
