// Tiled matrix-matrix product for prefill:
// y[m][n] = Σ_k x[m][k]·W[n][k] (+ bias[n]) (+ res[m][n]).
// A workgroup of 16×16 threads computes a TM×TN tile of y. Each K step of TK
// stages x's TM×TK tile and W's TN×TK tile (dequantized once per tile, not
// per output) in workgroup memory, transposed to k-major vec4 rows, so a
// thread's inner step is 2·(RM+RN)/4... vec4 reads feeding RM·RN FMAs.
// Thread (tx, ty) owns rows ty*4 + 64a + {0..3} for a < RM/4 and columns
// tx*4 + 64c + {0..3} for c < RN/4 (64 = 16 threads × 4).
// With SplitK (grid z = slices), workgroup z reduces over its slice of K
// only and writes y's slice z (elements from z·Stride); split_sum adds them.
struct Params {
    M: u32,
    N: u32,
    K: u32,
    Stride: u32,
}

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read> w: array<u32>;
@group(0) @binding(2) var<storage, read> x: array<f32>;
@group(0) @binding(3) var<storage, read_write> y: array<f32>;
{{- $b := 4}}
{{- if .Bias}}
@group(0) @binding({{$b}}) var<storage, read> bias: array<f32>;{{$b = add $b 1}}
{{- end}}
{{- if .Residual}}
@group(0) @binding({{$b}}) var<storage, read> res: array<f32>;{{$b = add $b 1}}
{{- end}}

fn wword(i: u32) -> u32 {
    return w[i];
}

const TM: u32 = {{.TM}}u;
const TN: u32 = {{.TN}}u;
const TK: u32 = {{.TK}}u;
const WG: u32 = 256u;
const RM: u32 = TM / 16u;
const RN: u32 = TN / 16u;

var<workgroup> xs: array<vec4<f32>, {{div (mul .TM .TK) 4}}>; // [kk][m/4]
var<workgroup> ws: array<vec4<f32>, {{div (mul .TN .TK) 4}}>; // [kk][n/4]

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let M = p.M;
    let N = p.N;
    let K = p.K;
    let tx = lid % 16u;
    let ty = lid / 16u;
    let m0 = wid.y * TM;
    let n0 = wid.x * TN;
{{- if .SplitK}}
    // Slices are whole TK steps, so only the last one ends short.
    let kPer = (K + {{.SplitK}}u * TK - 1u) / ({{.SplitK}}u * TK) * TK;
    let kBegin = wid.z * kPer;
    let kEnd = min(K, kBegin + kPer);
    let yBase = wid.z * p.Stride;
{{- else}}
    let kBegin = 0u;
    let kEnd = K;
    let yBase = 0u;
{{- end}}
    var acc: array<vec4<f32>, {{mul .RM (div .RN 4)}}>; // [a*4 + i][c] = rows, column vec4s
    for (var i = 0u; i < RM * RN / 4u; i++) {
        acc[i] = vec4<f32>(0.0);
    }
    // Row bases of the W rows this thread stages (fixed over K).
    for (var k0 = kBegin; k0 < kEnd; k0 += TK) {
        // Stage x: element (m, kk) goes to xs[kk][m/4][m%4]; consecutive
        // threads take consecutive k of a row (coalesced global reads).
        for (var e = lid; e < TM * TK; e += WG) {
            let mm = e / TK;
            let kk = e % TK;
            let m = m0 + mm;
            let k = k0 + kk;
            var v = 0.0;
            if (m < M && k < kEnd) {
                v = x[m * K + k];
            }
            xs[kk * (TM / 4u) + mm / 4u][mm % 4u] = v;
        }
        for (var e = lid; e < TN * TK; e += WG) {
            let nn = e / TK;
            let kk = e % TK;
            let n = n0 + nn;
            let k = k0 + kk;
            var v = 0.0;
            if (n < N && k < kEnd) {
                v = dq(row_base(n, K), k);
            }
            ws[kk * (TN / 4u) + nn / 4u][nn % 4u] = v;
        }
        workgroupBarrier();
        for (var kk = 0u; kk < TK; kk++) {
            var wv: array<vec4<f32>, {{div .RN 4}}>;
            for (var c = 0u; c < RN / 4u; c++) {
                wv[c] = ws[kk * (TN / 4u) + c * 16u + tx];
            }
            for (var a = 0u; a < RM / 4u; a++) {
                let xv = xs[kk * (TM / 4u) + a * 16u + ty];
                for (var c = 0u; c < RN / 4u; c++) {
                    let base = (a * 4u) * (RN / 4u) + c;
                    acc[base] += xv.x * wv[c];
                    acc[base + RN / 4u] += xv.y * wv[c];
                    acc[base + 2u * (RN / 4u)] += xv.z * wv[c];
                    acc[base + 3u * (RN / 4u)] += xv.w * wv[c];
                }
            }
        }
        workgroupBarrier();
    }
    for (var a = 0u; a < RM / 4u; a++) {
        for (var i = 0u; i < 4u; i++) {
            let m = m0 + a * 64u + ty * 4u + i;
            if (m >= M) {
                continue;
            }
            for (var c = 0u; c < RN / 4u; c++) {
                let v4 = acc[(a * 4u + i) * (RN / 4u) + c];
                for (var j = 0u; j < 4u; j++) {
                    let n = n0 + c * 64u + tx * 4u + j;
                    if (n < N) {
                        var v = v4[j];
{{- if .Bias}}
                        v += bias[n];
{{- end}}
{{- if and .Residual .SplitK}}
                        if (wid.z == 0u) {
                            v += res[m * N + n];
                        }
{{- else if .Residual}}
                        v += res[m * N + n];
{{- end}}
                        y[yBase + m * N + n] = v;
                    }
                }
            }
        }
    }
}
