// tq1_0: 256 elements in 54 bytes: qs[48], qh[4], d f16. A byte holds five
// base-3 digits (trits) as ceil(v·256/243); trit n (0 the most significant)
// is ((byte·3^n mod 256)·3) >> 8, the element value (trit - 1) * d.
// Elements 0..159: trit n of qs[m] is element 32n + m; 160..239: trit n of
// qs[32 + m] is 160 + 16n + m; 240..255: trit n (< 4) of qh[j] is 240 + 4n + j.
const BS: u32 = 256u;
const TS: u32 = 54u;

fn row_base(row: u32, K: u32) -> u32 {
    return row * (K / BS) * TS;
}

// 3^n for n <= 4.
fn tq1p(n: u32) -> u32 {
    return select((0x1b090301u >> (n << 3u)) & 0xffu, 81u, n == 4u);
}

fn dq(rb: u32, e: u32) -> f32 {
    let b = rb + (e / BS) * TS;
    let i = e % BS;
    var at = b + 48u + (i & 3u);
    var n = (i - 240u) >> 2u;
    if (i < 160u) {
        at = b + (i & 31u);
        n = i >> 5u;
    } else if (i < 240u) {
        at = b + 32u + ((i - 160u) & 15u);
        n = (i - 160u) >> 4u;
    }
    let q = (rd8(at) * tq1p(n)) & 0xffu;
    return rdh(b + 52u) * (f32((q * 3u) >> 8u) - 1.0);
}

// The trits n of the four bytes of w (one per lane), as floats 0, 1, 2.
fn tq1t(w: u32, p: u32) -> vec4<f32> {
    let q = (((vec4<u32>(w) >> vec4<u32>(0u, 8u, 16u, 24u)) & vec4<u32>(0xffu)) * p) & vec4<u32>(0xffu);
    return vec4<f32>((q * 3u) >> vec4<u32>(8u));
}

// Unit u is s = u % 8 of block u / 8: units 0..4 are trit s of qs[0..31];
// units 5, 6 trits 2(s-5) and 2(s-5)+1 of qs[32..47]; unit 7 trit 4 of
// qs[32..47], then the four trits of qh. Σ (t - 1)·x = Σ t·x - Σ x.
fn udot(rb: u32, u: u32, xs: ptr<function, array<vec4<f32>, 8>>, sx: f32) -> f32 {
    let b = rb + (u >> 3u) * TS;
    let s = u & 7u;
    var acc = 0.0;
    if (s < 5u) {
        let p = tq1p(s);
        let q0 = rd4x(b);
        let q1 = rd4x(b + 16u);
        for (var k = 0u; k < 4u; k++) {
            acc += dot(tq1t(q0[k], p), (*xs)[k]) + dot(tq1t(q1[k], p), (*xs)[4u + k]);
        }
    } else {
        let q = rd4x(b + 32u);
        let n = (s - 5u) << 1u;
        let p0 = tq1p(n);
        for (var k = 0u; k < 4u; k++) {
            acc += dot(tq1t(q[k], p0), (*xs)[k]);
        }
        if (s < 7u) {
            let p1 = tq1p(n + 1u);
            for (var k = 0u; k < 4u; k++) {
                acc += dot(tq1t(q[k], p1), (*xs)[4u + k]);
            }
        } else {
            let h = rd32(b + 48u);
            for (var k = 0u; k < 4u; k++) {
                acc += dot(tq1t(h, tq1p(k)), (*xs)[4u + k]);
            }
        }
    }
    return rdh(b + 52u) * (acc - sx);
}
