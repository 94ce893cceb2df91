// Element-wise {{.Elt}} over N f32 values, one thread per element.
struct Params {
    N: u32,
    scale: f32,
    pad0: u32,
    pad1: u32,
}

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read> a: array<f32>;
{{- if or (eq .Elt "gelu") (eq .Elt "scale")}}
@group(0) @binding(2) var<storage, read_write> y: array<f32>;
{{- else}}
@group(0) @binding(2) var<storage, read> b: array<f32>;
@group(0) @binding(3) var<storage, read_write> y: array<f32>;
{{- end}}

// ggml's tanh-approximated GELU. The tanh argument is clamped: tanh is ±1 to
// f32 precision beyond ±10, and some drivers' tanh overflows to NaN for huge inputs.
fn gelu(v: f32) -> f32 {
    let t = clamp(0.7978845608028654 * v * (1.0 + 0.044715 * v * v), -10.0, 10.0);
    return 0.5 * v * (1.0 + tanh(t));
}

@compute @workgroup_size({{.WG}})
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
    let i = wg_linear(wid, nwg) * {{.WG}}u + lid;
    if (i >= p.N) {
        return;
    }
{{- if eq .Elt "silu_mul"}}
    y[i] = silu(a[i]) * b[i];
{{- else if eq .Elt "add"}}
    y[i] = a[i] + b[i];
{{- else if eq .Elt "scale"}}
    y[i] = a[i] * p.scale;
{{- else}}
    y[i] = gelu(a[i]);
{{- end}}
}
