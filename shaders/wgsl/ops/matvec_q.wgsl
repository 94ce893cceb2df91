// Matrix-vector product for decode, block-quantized weights:
// y[n] = Σ_k W[n][k]·x[k] (+ bias[n]) (+ res[n]); with SwiGLU, W is the gate
// matrix, wu the up matrix, and y[n] = silu(g)·u. A workgroup owns ROWS
// rows in groups of RPT; the T threads of a group stride over 32-element
// units (a block or a K-quant sub-block), load that unit's x once and dot it
// with the unit of each of the group's RPT rows. Reusing x across rows
// matters: a unit is 18-34 bytes of weights but 128 bytes of x, and without
// reuse the x reads (L1 hits) outrun the weight stream.
// x is bound as vec4: pad its binding to 16 bytes.
{{template "mv_bindings" .}}
{{- template "mv_mergex_decl" .}}
// x is staged XU units (a multiple of T) at a time: the T threads of a
// group then run XU/T unit steps with no barrier between them, so warps
// drift apart and their weight loads overlap instead of meeting at a
// barrier every step.
const XU: u32 = {{.XU}}u;
var<workgroup> xsh: array<array<vec4<f32>, {{.XU}}>, 8>; // [k][unit]: the unit index is clamped alone

{{- if .StageW}}
// StageW: per step the weight bytes of the step's blocks, for every row of
// the workgroup, are copied to workgroup memory with consecutive threads
// loading consecutive words (coalesced), and the unit dots read them there.
// SWR words per row: the step's blocks rounded out to words, +1.
const UPB: u32 = BS / 32u;
const SWR: u32 = {{.StageWords}}u;
var<workgroup> sw: array<u32, {{mul .Rows .StageWords}}>;
{{- if .SwiGLU}}
var<workgroup> sw_u: array<u32, {{mul .Rows .StageWords}}>;
{{- end}}
// Staged copy offset of the row being dotted: r*SWR - its first word (wrapping).
var<private> sw_off: u32;

fn wword(i: u32) -> u32 {
    return sw[i + sw_off];
}
{{- if .SwiGLU}}

fn wword_u(i: u32) -> u32 {
    return sw_u[i + sw_off];
}
{{- end}}
{{- else if .VecW}}
// Packed weights are bound as vec4 for their aligned quant loads (wvec4).
fn wword(i: u32) -> u32 {
    return w[i >> 2u][i & 3u];
}
{{- if .SwiGLU}}

fn wword_u(i: u32) -> u32 {
    return wu[i >> 2u][i & 3u];
}
{{- end}}
{{- else}}
fn wword(i: u32) -> u32 {
    return w[i];
}
{{- if .SwiGLU}}

fn wword_u(i: u32) -> u32 {
    return wu[i];
}
{{- end}}
{{- end}}

{{- if .Persist}}
{{template "mvq_persist" .}}
{{- else}}

@compute @workgroup_size({{.WG}})
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
{{- template "mv_prologue" .}}
{{- template "mv_mergex" .}}
{{- template "mv_postadd" .}}
    var xs: array<vec4<f32>, 8>;
    let nu = K / 32u;
{{- if .Norm}}
    var ssq = 0.0;
{{- end}}
    for (var u0 = 0u; u0 < nu; u0 += XU) {
{{- template "mvq_stage" .}}
{{- if .StageW}}
        // (StageW runs with XU = T: one unit step per round.)
        let b0 = u0 / UPB;
        let b1 = min(b0 + T / UPB, nu / UPB);
        for (var j = lid; j < ROWS * SWR; j += WG) {
            let r = j / SWR;
            let rbr = row_base(min(row0 + r, N - 1u), K);
            let first = (rbr + b0 * TS) >> 2u;
            if (first + (j % SWR) < ((rbr + b1 * TS + 3u) >> 2u) + 1u) {
                sw[j] = w[first + j % SWR];
{{- if .SwiGLU}}
                sw_u[j] = wu[first + j % SWR];
{{- end}}
            }
        }
{{- end}}
        workgroupBarrier();
{{- template "mvq_steps" .}}
        workgroupBarrier(); // xsh is restaged next round
    }
{{- template "mv_epilogue" .}}
}
{{- end}}

{{define "mvq_steps"}}
{{- if .Persist}}
        // Persist: no branch per step. Past the last unit (a partial round) a
        // thread redoes unit nu-1 and drops the result, so the round's loads
        // need not wait on a condition (2.5% faster on the persistent q4_0 lm
        // head, where the one branch-free kernel cost 1.5% end to end in the
        // other matvecs).
        for (var s = 0u; s < XU; s += T) {
            let ok = u0 + s + t < nu;
            let u = min(u0 + s + t, nu - 1u);
            {
{{- else}}
        for (var s = 0u; s < XU; s += T) {
            let u = u0 + s + t;
            if (u < nu) {
{{- end}}
                var x4 = vec4<f32>(0.0);
                for (var k = 0u; k < 8u; k++) {
                    xs[k] = xsh[k][s + t];
                    x4 += xs[k];
                }
                let sx = hsum(x4);
                for (var i = 0u; i < RPT; i++) {
{{- if .StageW}}
                    sw_off = (g * RPT + i) * SWR - ((rb[i] + (u0 / UPB) * TS) >> 2u);
{{- end}}
{{- if .Persist}}
                    acc[i] += select(0.0, udot(rb[i], u, &xs, sx), ok);
{{- if .SwiGLU}}
                    acc[RPT + i] += select(0.0, udot_u(rb[i], u, &xs, sx), ok);
{{- end}}
{{- else}}
                    acc[i] += udot(rb[i], u, &xs, sx);
{{- if .SwiGLU}}
                    acc[RPT + i] += udot_u(rb[i], u, &xs, sx);
{{- end}}
{{- end}}
                }
            }
        }
{{- end}}
