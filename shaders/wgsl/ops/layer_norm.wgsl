// LayerNorm of M rows of K values (ggml_norm, then the weight multiply and,
// with Bias, the bias add): y = (x - mean)/sqrt(var + eps)·weight (+ bias),
// var the population variance, computed from the centred values in a second
// pass over the row (no E[x²] - mean² cancellation). One workgroup per row;
// the sums are reduced in f32.
struct Params {
    K: u32,
    M: u32,
    eps: f32,
    pad0: u32,
}

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read> x: array<f32>;
@group(0) @binding(2) var<storage, read> weight: array<f32>;
{{- if .Bias}}
@group(0) @binding(3) var<storage, read> bias: array<f32>;
@group(0) @binding(4) var<storage, read_write> y: array<f32>;
{{- else}}
@group(0) @binding(3) var<storage, read_write> y: array<f32>;
{{- end}}

const WG: u32 = {{.WG}}u;
const NACC: u32 = 1u;

var<workgroup> red: array<f32, {{.WG}}>;

@compute @workgroup_size({{.WG}})
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
    let row = wg_linear(wid, nwg);
    if (row >= p.M) {
        return;
    }
    let K = p.K;
    let base = row * K;
    var acc: array<f32, 1>;
    acc[0] = 0.0;
    for (var e = lid; e < K; e += WG) {
        acc[0] += x[base + e];
    }
{{template "reduce" .}}
    let mean = red[0] / f32(K);
    workgroupBarrier(); // red is reused by the second reduction
    acc[0] = 0.0;
    for (var e = lid; e < K; e += WG) {
        let d = x[base + e] - mean;
        acc[0] += d * d;
    }
{{template "reduce" .}}
    let inv = inverseSqrt(red[0] / f32(K) + p.eps);
    for (var e = lid; e < K; e += WG) {
{{- if .Bias}}
        y[base + e] = (x[base + e] - mean) * inv * weight[e] + bias[e];
{{- else}}
        y[base + e] = (x[base + e] - mean) * inv * weight[e];
{{- end}}
    }
}
