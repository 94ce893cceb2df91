// RMSNorm of M rows of K values, fused with the weight multiply and, with
// Residual, the residual add (h = x + res, also stored to sum for the next
// residual). One workgroup per row; the sum of squares is reduced in f32.
{{- /* PostAdd adds the residual after the norm instead: y = res +
norm(x)·weight, a post-norm block's output added to the residual stream
(Gemma 2 and 3). A template comment, so the other variants' WGSL is as
before. */}}
struct Params {
    K: u32,
    M: u32,
    eps: f32,
    pad0: u32,
}

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read> x: array<f32>;
{{- if .Residual}}
@group(0) @binding(2) var<storage, read> res: array<f32>;
@group(0) @binding(3) var<storage, read> weight: array<f32>;
@group(0) @binding(4) var<storage, read_write> y: array<f32>;
@group(0) @binding(5) var<storage, read_write> sum: array<f32>;
{{- else if .PostAdd}}
@group(0) @binding(2) var<storage, read> res: array<f32>;
@group(0) @binding(3) var<storage, read> weight: array<f32>;
@group(0) @binding(4) var<storage, read_write> y: array<f32>;
{{- else}}
@group(0) @binding(2) var<storage, read> weight: array<f32>;
@group(0) @binding(3) var<storage, read_write> y: array<f32>;
{{- end}}

const WG: u32 = {{.WG}}u;
const NACC: u32 = 1u;
// Rows of at most R·WG values (Gemma 3 1B's 1152, Llama-1B's 2048 at 256
// threads) take one pass: each thread's values, its residual and weight
// loads issued together and kept in registers, where the loop below costs
// a load latency per stride on each of its two passes (7.8 µs for one
// 1152-value row on an H200, most of it waiting).
const R: u32 = 8u;

var<workgroup> red: array<f32, {{.WG}}>;

fn load(i: u32) -> f32 {
{{- if .Residual}}
    return x[i] + res[i];
{{- else}}
    return x[i];
{{- end}}
}

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
    if (K <= R * WG) {
        var hv: array<f32, R>;
        var wv: array<f32, R>;
{{- if .PostAdd}}
        var rv: array<f32, R>;
{{- end}}
        for (var i = 0u; i < R; i++) {
            let e = lid + i * WG;
            hv[i] = 0.0;
            wv[i] = 0.0;
{{- if .PostAdd}}
            rv[i] = 0.0;
{{- end}}
            if (e < K) {
                hv[i] = load(base + e);
                wv[i] = weight[e];
{{- if .PostAdd}}
                rv[i] = res[base + e];
{{- end}}
            }
        }
        for (var i = 0u; i < R; i++) {
{{- if .Residual}}
            let e = lid + i * WG;
            if (e < K) {
                sum[base + e] = hv[i];
            }
{{- end}}
            acc[0] += hv[i] * hv[i];
        }
{{- template "reduce" .}}
        let inv = inverseSqrt(red[0] / f32(K) + p.eps);
        for (var i = 0u; i < R; i++) {
            let e = lid + i * WG;
            if (e < K) {
                y[base + e] = {{if .PostAdd}}rv[i] + {{end}}hv[i] * inv * wv[i];
            }
        }
        return;
    }
    for (var e = lid; e < K; e += WG) {
        let h = load(base + e);
{{- if .Residual}}
        sum[base + e] = h;
{{- end}}
        acc[0] += h * h;
    }
{{template "reduce" .}}
    let inv = inverseSqrt(red[0] / f32(K) + p.eps);
    for (var e = lid; e < K; e += WG) {
        y[base + e] = {{if .PostAdd}}res[base + e] + {{end}}load(base + e) * inv * weight[e];
    }
}
