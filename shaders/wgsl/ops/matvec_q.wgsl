// Matrix-vector product for decode, quantized weights: y[n] = Σ_k W[n][k]·x[k]
// (+ bias[n]) (+ res[n]); with SwiGLU, W is the gate matrix, wu the up
// matrix, and y[n] = silu(g)·u. A workgroup owns ROWS rows, T = WG/ROWS
// threads each. Per step the threads of a row copy the bytes of T units
// (32-element blocks or K-quant sub-blocks) into workgroup memory with
// consecutive u32 loads — fully coalesced, where each thread reading its own
// 18- or 34-byte block would scatter every load instruction over many cache
// sectors — then each thread decodes one unit from there. x is bound as vec4
// (pad its binding to 16 bytes).
{{template "mv_bindings" .}}
const UPB: u32 = BS / 32u; // units per block
const BPI: u32 = T / UPB;  // blocks per row per step
const SW: u32 = {{.StageWords}}u; // staged words per row: BPI*TS/4 rounded up, +1 for a misaligned start

var<workgroup> sw: array<u32, {{mul .Rows .StageWords}}>;
{{- if .SwiGLU}}
var<workgroup> sw_u: array<u32, {{mul .Rows .StageWords}}>;
{{- end}}
// Maps a weight word index to its staged copy: r*SW - first word (wrapping).
var<private> sw_off: u32;

fn wword(i: u32) -> u32 {
    return sw[i + sw_off];
}
{{- if .SwiGLU}}

fn wword_u(i: u32) -> u32 {
    return sw_u[i + sw_off];
}
{{- end}}

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
    var xs: array<vec4<f32>, 8>;
    let nblocks = K / BS;
    for (var b0 = 0u; b0 < nblocks; b0 += BPI) {
        let nb = min(BPI, nblocks - b0);
        let first = (rb + b0 * TS) >> 2u;
        let nw = ((rb + (b0 + nb) * TS + 3u) >> 2u) - first;
        for (var j = t; j < nw; j += T) {
            sw[r * SW + j] = w[first + j];
{{- if .SwiGLU}}
            sw_u[r * SW + j] = wu[first + j];
{{- end}}
        }
        workgroupBarrier();
        sw_off = r * SW - first;
        let u = b0 * UPB + t;
        if (u < (b0 + nb) * UPB) {
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
        workgroupBarrier(); // the next step overwrites sw
    }
{{template "mv_epilogue" .}}
}
