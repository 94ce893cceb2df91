// q3_K: 256 elements in 110 bytes: hmask[32], qs[64], scales[12] (16 packed 6-bit), d.
// Element e: n = e/128, j = (e%128)/32, l = e%32; 2-bit q at shift 2j of qs[32n + l], minus 4
// when bit 4n+j of hmask[l] is clear; sub-block is = 8n + 2j + l/16; value d * (sc - 32) * q.
const BS: u32 = 256u;
const TS: u32 = 110u;

fn row_base(row: u32, K: u32) -> u32 {
    return row * (K / BS) * TS;
}

fn dq(rb: u32, e: u32) -> f32 {
    let b = rb + (e / BS) * TS;
    let i = e % BS;
    let n = i >> 7u;
    let j = (i >> 5u) & 3u;
    let l = i & 31u;
    let is = (n << 3u) + (j << 1u) + (l >> 4u);
    let lo = (rd8(b + 96u + (is & 7u)) >> ((is >> 3u) << 2u)) & 15u;
    let hi = (rd8(b + 104u + (is & 3u)) >> ((is >> 2u) << 1u)) & 3u;
    let sc = f32(lo | (hi << 4u)) - 32.0;
    let q = (rd8(b + 32u + (n << 5u) + l) >> (j << 1u)) & 3u;
    let hbit = (rd8(b + l) >> ((n << 2u) + j)) & 1u;
    return rdh(b + 108u) * sc * (f32(q) - select(4.0, 0.0, hbit == 1u));
}
