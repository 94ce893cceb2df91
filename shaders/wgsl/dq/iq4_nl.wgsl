// iq4_nl: 32 elements in 18 bytes: d f16, qs[16]; d * kvalues_iq4nl[q].
const BS: u32 = 32u;
const TS: u32 = 18u;

// A var<private>, not a const: naga (wgpu-native v22) cannot index a const array dynamically.
var<private> IQ4NL: array<f32, 16> = array<f32, 16>(-127.0, -104.0, -83.0, -65.0, -49.0, -35.0, -22.0, -10.0,
                                                    1.0, 13.0, 25.0, 38.0, 53.0, 69.0, 89.0, 113.0);

fn row_base(row: u32, K: u32) -> u32 {
    return row * (K / BS) * TS;
}

fn dq(rb: u32, e: u32) -> f32 {
    let b = rb + (e / BS) * TS;
    let i = e % BS;
    let q = (rd8(b + 2u + (i & 15u)) >> ((i >> 4u) << 2u)) & 15u;
    return rdh(b) * IQ4NL[q];
}

// Table values of the four packed nibble indices in n (one per byte).
fn tbl4(n: u32) -> vec4<f32> {
    return vec4<f32>(IQ4NL[n & 15u], IQ4NL[(n >> 8u) & 15u], IQ4NL[(n >> 16u) & 15u], IQ4NL[n >> 24u]);
}

fn udot(rb: u32, u: u32, xs: ptr<function, array<vec4<f32>, 8>>, sx: f32) -> f32 {
    let b = rb + u * TS;
    let q = rd4x(b + 2u);
    var s = 0.0;
    for (var k = 0u; k < 4u; k++) {
        let lo = q[k] & 0x0f0f0f0fu;
        let hi = (q[k] >> 4u) & 0x0f0f0f0fu;
        s += dot(tbl4(lo), (*xs)[k]) + dot(tbl4(hi), (*xs)[4u + k]);
    }
    return rdh(b) * s;
}
