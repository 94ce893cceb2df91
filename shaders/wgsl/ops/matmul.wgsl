// Tiled matrix-matrix product for prefill: y[m][n] = sum_k x[m][k] * W[n][k] (+ bias[n]) (+ res[m][n]).
// A workgroup of TX*TY threads computes a TM x TN tile of y; each K step
// dequantizes a TN x TK tile of W and copies a TM x TK tile of x into
// workgroup memory, so each weight is decoded once per tile instead of per
// output. Every thread owns RM x RN outputs strided by TY and TX.
struct Params {
    M: u32,
    N: u32,
    K: u32,
    pad0: u32,
}

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read> w: array<u32>;

fn wword(i: u32) -> u32 {
    return w[i];
}
@group(0) @binding(2) var<storage, read> x: array<f32>;
@group(0) @binding(3) var<storage, read_write> y: array<f32>;
{{- $b := 4}}
{{- if .Bias}}
@group(0) @binding({{$b}}) var<storage, read> bias: array<f32>;{{$b = add $b 1}}
{{- end}}
{{- if .Residual}}
@group(0) @binding({{$b}}) var<storage, read> res: array<f32>;{{$b = add $b 1}}
{{- end}}

const TM: u32 = {{.TM}}u;
const TN: u32 = {{.TN}}u;
const TK: u32 = {{.TK}}u;
const TX: u32 = 16u;
const TY: u32 = {{div .WG 16}}u;
const WG: u32 = {{.WG}}u;
const RM: u32 = TM / TY;
const RN: u32 = TN / TX;

var<workgroup> xs: array<f32, {{mul .TM .TK}}>;
var<workgroup> ws: array<f32, {{mul .TN .TK}}>;

@compute @workgroup_size({{.WG}})
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let M = p.M;
    let N = p.N;
    let K = p.K;
    let tx = lid % TX;
    let ty = lid / TX;
    let m0 = wid.y * TM;
    let n0 = wid.x * TN;
    var acc: array<f32, {{mul .RM .RN}}>;
    for (var i = 0u; i < RM * RN; i++) {
        acc[i] = 0.0;
    }
    for (var k0 = 0u; k0 < K; k0 += TK) {
        for (var i = lid; i < TM * TK; i += WG) {
            let m = m0 + i / TK;
            let k = k0 + i % TK;
            var v = 0.0;
            if (m < M && k < K) {
                v = x[m * K + k];
            }
            xs[i] = v;
        }
        for (var i = lid; i < TN * TK; i += WG) {
            let n = n0 + i / TK;
            let k = k0 + i % TK;
            var v = 0.0;
            if (n < N && k < K) {
                v = dq(row_base(n, K), k);
            }
            ws[i] = v;
        }
        workgroupBarrier();
        for (var kk = 0u; kk < TK; kk++) {
            var xr: array<f32, {{.RM}}>;
            for (var a = 0u; a < RM; a++) {
                xr[a] = xs[(ty + a * TY) * TK + kk];
            }
            for (var c = 0u; c < RN; c++) {
                let wv = ws[(tx + c * TX) * TK + kk];
                for (var a = 0u; a < RM; a++) {
                    acc[a * RN + c] += xr[a] * wv;
                }
            }
        }
        workgroupBarrier();
    }
    for (var a = 0u; a < RM; a++) {
        let m = m0 + ty + a * TY;
        for (var c = 0u; c < RN; c++) {
            let n = n0 + tx + c * TX;
            if (m < M && n < N) {
                var v = acc[a * RN + c];
{{- if .Bias}}
                v += bias[n];
{{- end}}
{{- if .Residual}}
                v += res[m * N + n];
{{- end}}
                y[m * N + n] = v;
            }
        }
    }
}
