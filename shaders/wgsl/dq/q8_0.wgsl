// q8_0: 32 elements in 34 bytes: d f16, qs i8[32]; q * d.
const BS: u32 = 32u;
const TS: u32 = 34u;

fn row_base(row: u32, K: u32) -> u32 {
    return row * (K / BS) * TS;
}

fn dq(rb: u32, e: u32) -> f32 {
    let b = rb + (e / BS) * TS;
    let i = e % BS;
    return rdh(b) * f32(rd8s(b + 2u + i));
}
