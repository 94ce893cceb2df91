// Shared helpers. Weight and KV data are bound as array<u32> whatever their
// element type, so one buffer layout serves devices with and without
// shader-f16; f16 values are unpacked to f32 before any arithmetic.

// f16 pair in one u32 (low half first) to f32.
fn h2f(bits: u32) -> vec2<f32> {
{{- if .F16}}
    return vec2<f32>(bitcast<vec2<f16>>(bits));
{{- else}}
    return unpack2x16float(bits);
{{- end}}
}

// f32 pair to a packed f16 pair (round to nearest even, like ggml's F32->F16).
fn f2h(v: vec2<f32>) -> u32 {
{{- if .F16}}
    return bitcast<u32>(vec2<f16>(v));
{{- else}}
    return pack2x16float(v);
{{- end}}
}

// silu(x) = x * sigmoid(x), written to stay finite for large |x|.
fn silu(x: f32) -> f32 {
    return x / (1.0 + exp(-x));
}
{{- if eq .ActFn "gelu"}}

// ggml's tanh-approximated GELU, 0.5·v·(1 + tanh(t)) with
// t = √(2/π)·(v + 0.044715·v³), computed as v·sigmoid(2t), which equals it:
// no tanh (some drivers' tanh overflows to NaN for large |t|) and no
// cancellation where tanh(t) is near -1.
fn gelu(v: f32) -> f32 {
    let t = 0.7978845608028654 * v * (1.0 + 0.044715 * v * v);
    return v / (1.0 + exp(-2.0 * t));
}
{{- end}}

// Workgroup grids are capped at 65535 per dimension, so 1-D launches spread
// over x and y; this folds them back into one linear workgroup index.
fn wg_linear(wid: vec3<u32>, nwg: vec3<u32>) -> u32 {
    return wid.x + wid.y * nwg.x;
}

// NaN test on the bits: drivers may compile v != v under fast-math rules to false.
fn is_nan(v: f32) -> bool {
    return (bitcast<u32>(v) & 0x7fffffffu) > 0x7f800000u;
}
