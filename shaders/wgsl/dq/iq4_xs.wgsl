// iq4_xs: 256 elements in 136 bytes: d f16, scales_h u16, scales_l[4], qs[128].
// Sub-block ib (32 elements) has the 6-bit scale ls; value d * (ls - 32) * kvalues_iq4nl[q].
const BS: u32 = 256u;
const TS: u32 = 136u;

// kvalues_iq4nl as int8 packed four to a word (index i in byte i & 3 of
// word i >> 2): looked up with selects and a shift, in registers. A const
// array cannot be indexed dynamically by naga (wgpu-native v22), and a
// var<private> array lives in slow per-thread local memory.
const IQ4NL0: u32 = 0xbfad9881u; // -127 -104 -83 -65
const IQ4NL1: u32 = 0xf6eaddcfu; // -49 -35 -22 -10
const IQ4NL2: u32 = 0x26190d01u; // 1 13 25 38
const IQ4NL3: u32 = 0x71594535u; // 53 69 89 113

fn iq4nl(n: u32) -> f32 {
    let lo = select(IQ4NL0, IQ4NL1, (n & 4u) != 0u);
    let hi = select(IQ4NL2, IQ4NL3, (n & 4u) != 0u);
    let wd = select(lo, hi, (n & 8u) != 0u);
    return f32(i32(wd << (24u - ((n & 3u) << 3u))) >> 24u);
}

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
    return rdh(b) * (f32(ls) - 32.0) * iq4nl(q);
}

// Table values of the four packed nibble indices in n (one per byte).
fn tbl4(n: u32) -> vec4<f32> {
    return vec4<f32>(iq4nl(n & 15u), iq4nl((n >> 8u) & 15u), iq4nl((n >> 16u) & 15u), iq4nl(n >> 24u));
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
