// Matrix-vector product for decode: y[n] = sum_k W[n][k] * x[k] (+ bias[n]) (+ res[n]).
// With SwiGLU, W is the gate matrix, wu the up matrix, and y[n] = silu(g) * u.
// Each workgroup owns ROWS rows; its threads stride over 8-element chunks of
// K so every x chunk loaded is reused for all ROWS rows.
struct Params {
    K: u32,
    N: u32,
    pad0: u32,
    pad1: u32,
}

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read> w: array<u32>;
@group(0) @binding(2) var<storage, read> x: array<f32>;
@group(0) @binding(3) var<storage, read_write> y: array<f32>;
{{- $b := 4}}
{{- if .SwiGLU}}
@group(0) @binding({{$b}}) var<storage, read> wu: array<u32>;{{$b = add $b 1}}
{{- end}}
{{- if .Bias}}
@group(0) @binding({{$b}}) var<storage, read> bias: array<f32>;{{$b = add $b 1}}
{{- end}}
{{- if .Residual}}
@group(0) @binding({{$b}}) var<storage, read> res: array<f32>;{{$b = add $b 1}}
{{- end}}

const WG: u32 = {{.WG}}u;
const ROWS: u32 = {{.Rows}}u;
const NACC: u32 = {{if .SwiGLU}}2u{{else}}1u{{end}} * ROWS;

var<workgroup> red: array<f32, {{.RedSize}}>;

@compute @workgroup_size({{.WG}})
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
    let K = p.K;
    let N = p.N;
    let row0 = wg_linear(wid, nwg) * ROWS;
    if (row0 >= N) {
        return; // whole workgroup leaves together: no barrier is skipped by part of it
    }
    var acc: array<f32, NACC>;
    var rbs: array<u32, ROWS>;
    for (var r = 0u; r < ROWS; r++) {
        // Rows past N repeat the last row: wasted but in bounds, and keeps the loop uniform.
        rbs[r] = row_base(min(row0 + r, N - 1u), K);
        acc[r] = 0.0;
{{- if .SwiGLU}}
        acc[ROWS + r] = 0.0;
{{- end}}
    }
    let nu = (K + 7u) / 8u;
    for (var u = lid; u < nu; u += WG) {
        for (var r = 0u; r < ROWS; r++) {
            acc[r] += dot8(rbs[r], u * 8u, K);
{{- if .SwiGLU}}
            acc[ROWS + r] += dot8_u(rbs[r], u * 8u, K);
{{- end}}
        }
    }
{{template "reduce" .}}
    if (lid < ROWS && row0 + lid < N) {
        let row = row0 + lid;
{{- if .SwiGLU}}
        let g = red[lid * WG];
        let u = red[(ROWS + lid) * WG];
        var v = silu(g) * u;
{{- else}}
        var v = red[lid * WG];
{{- end}}
{{- if .Bias}}
        v += bias[row];
{{- end}}
{{- if .Residual}}
        v += res[row];
{{- end}}
        y[row] = v;
    }
}
