// Element-wise {{.Elt}} over N f32 values, one thread per element.
struct Params {
    N: u32,
    scale: f32,
    pad0: u32,
    pad1: u32,
}

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read> a: array<f32>;
{{- if or (eq .Elt "gelu") (eq .Elt "scale") (eq .Elt "silu") (eq .Elt "softcap")}}
@group(0) @binding(2) var<storage, read_write> y: array<f32>;
{{- else}}
@group(0) @binding(2) var<storage, read> b: array<f32>;
@group(0) @binding(3) var<storage, read_write> y: array<f32>;
{{- end}}
{{- if eq .Elt "softcap"}}

// tanh without the builtin, which some drivers compute as a quotient of
// exponentials that overflows to NaN for large |x| and loses relative
// precision near 0: its Taylor series below 0.25 (the first term left out,
// x¹¹·1382/155925, is < 1e-8 relative there), else (1 - e)/(1 + e) with
// e = exp(-2|x|) <= 0.61, which cannot overflow.
fn tanh_s(x: f32) -> f32 {
    let ax = abs(x);
    if (ax < 0.25) {
        let x2 = x * x;
        return x * (1.0 + x2 * (-0.3333333333333333 + x2 * (0.13333333333333333 + x2 * (-0.05396825396825397 + x2 * 0.021869488536155203))));
    }
    let e = exp(-2.0 * ax);
    let t = (1.0 - e) / (1.0 + e);
    return select(t, -t, x < 0.0);
}
{{- end}}

@compute @workgroup_size({{.WG}})
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
    let i = wg_linear(wid, nwg) * {{.WG}}u + lid;
    if (i >= p.N) {
        return;
    }
{{- if eq .Elt "silu_mul"}}
    y[i] = silu(a[i]) * b[i];
{{- else if eq .Elt "gelu_mul"}}
    y[i] = gelu(a[i]) * b[i];
{{- else if eq .Elt "add"}}
    y[i] = a[i] + b[i];
{{- else if eq .Elt "mul"}}
    y[i] = a[i] * b[i];
{{- else if eq .Elt "scale"}}
    y[i] = a[i] * p.scale;
{{- else if eq .Elt "silu"}}
    y[i] = silu(a[i]);
{{- else if eq .Elt "softcap"}}
    y[i] = p.scale * tanh_s(a[i] / p.scale);
{{- else}}
    y[i] = gelu(a[i]);
{{- end}}
}
