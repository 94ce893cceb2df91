// Matrix-vector product for decode: y[n] = sum_k W[n][k] * x[k] (+ bias[n]) (+ res[n]).
// With SwiGLU, W is the gate matrix, wu the up matrix, and y[n] = silu(g) * u.
// Each workgroup owns ROWS rows, WG/ROWS threads per row striding over
// 32-element units of K; x is bound as vec4 (pad its binding to 16 bytes).
struct Params {
    K: u32,
    N: u32,
    pad0: u32,
    pad1: u32,
}

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read> w: array<u32>;
@group(0) @binding(2) var<storage, read> x: array<vec4<f32>>;
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
const T: u32 = WG / ROWS; // threads per row

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
    let r = lid / T;
    let t = lid % T;
    // Rows past N repeat the last row: wasted but in bounds, and barriers stay uniform.
    let rb = row_base(min(row0 + r, N - 1u), K);
    var acc = 0.0;
{{- if .SwiGLU}}
    var accu = 0.0;
{{- end}}
    // 32-element units (a block, or a K-quant sub-block) with word loads;
    // plain-type rows whose K is not a multiple of 32 take the 8-element path.
    let nu = select(0u, K / 32u, (K & 31u) == 0u);
    var xs: array<vec4<f32>, 8>;
    for (var u = t; u < nu; u += T) {
        var x4 = vec4<f32>(0.0);
        for (var k = 0u; k < 8u; k++) {
            xs[k] = x[u * 8u + k];
            x4 += xs[k];
        }
        let sx = hsum(x4);
        acc += udot(rb, u, &xs, sx);
{{- if .SwiGLU}}
        accu += udot_u(rb, u, &xs, sx);
{{- end}}
    }
    if (nu == 0u) {
        for (var c = t; c < (K + 7u) / 8u; c += T) {
            acc += dot8(rb, c * 8u, K);
{{- if .SwiGLU}}
            accu += dot8_u(rb, c * 8u, K);
{{- end}}
        }
    }
    red[lid] = acc;
{{- if .SwiGLU}}
    red[WG + lid] = accu;
{{- end}}
    workgroupBarrier();
    for (var s = T / 2u; s > 0u; s >>= 1u) {
        if (t < s) {
            red[lid] += red[lid + s];
{{- if .SwiGLU}}
            red[WG + lid] += red[WG + lid + s];
{{- end}}
        }
        workgroupBarrier();
    }
    if (t == 0u && row0 + r < N) {
        let row = row0 + r;
{{- if .SwiGLU}}
        var v = silu(red[lid]) * red[WG + lid];
{{- else}}
        var v = red[lid];
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
