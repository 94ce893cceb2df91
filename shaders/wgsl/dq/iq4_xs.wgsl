// iq4_xs: 256 elements in 136 bytes: d f16, scales_h u16, scales_l[4], qs[128].
// Sub-block ib (32 elements) has the 6-bit scale ls; value d * (ls - 32) * kvalues_iq4nl[q].
const BS: u32 = 256u;
const TS: u32 = 136u;

// A var<private>, not a const: naga (wgpu-native v22) cannot index a const array dynamically.
var<private> IQ4NL: array<f32, 16> = array<f32, 16>(-127.0, -104.0, -83.0, -65.0, -49.0, -35.0, -22.0, -10.0,
                                                    1.0, 13.0, 25.0, 38.0, 53.0, 69.0, 89.0, 113.0);

fn row_base(row: u32, K: u32) -> u32 {
    return row * (K / BS) * TS;
}

fn dq(rb: u32, e: u32) -> f32 {
    let b = rb + (e / BS) * TS;
    let i = e % BS;
    let ib = i >> 5u;
    let r = i & 31u;
    let ls = ((rd8(b + 4u + (ib >> 1u)) >> ((ib & 1u) << 2u)) & 15u) | (((rd16(b + 2u) >> (ib << 1u)) & 3u) << 4u);
    let q = (rd8(b + 8u + (ib << 4u) + (r & 15u)) >> ((r >> 4u) << 2u)) & 15u;
    return rdh(b) * (f32(ls) - 32.0) * IQ4NL[q];
}

// Table values of the four packed nibble indices in n (one per byte).
fn tbl4(n: u32) -> vec4<f32> {
    return vec4<f32>(IQ4NL[n & 15u], IQ4NL[(n >> 8u) & 15u], IQ4NL[(n >> 16u) & 15u], IQ4NL[n >> 24u]);
}

// Unit u is sub-block ib = u % 8 of block u / 8.
fn udot(rb: u32, u: u32, xs: ptr<function, array<vec4<f32>, 8>>, sx: f32) -> f32 {
    let b = rb + (u >> 3u) * TS;
    let ib = u & 7u;
    let ls = ((rd8(b + 4u + (ib >> 1u)) >> ((ib & 1u) << 2u)) & 15u) | (((rd16(b + 2u) >> (ib << 1u)) & 3u) << 4u);
    let q = rd4x(b + 8u + (ib << 4u));
    var s = 0.0;
    for (var k = 0u; k < 4u; k++) {
        let lo = q[k] & 0x0f0f0f0fu;
        let hi = (q[k] >> 4u) & 0x0f0f0f0fu;
        s += dot(tbl4(lo), (*xs)[k]) + dot(tbl4(hi), (*xs)[4u + k]);
    }
    return rdh(b) * (f32(ls) - 32.0) * s;
}
