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

{{- if .VecW}}
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
        workgroupBarrier();
{{- template "mvq_steps" .}}
        workgroupBarrier(); // xsh is restaged next round
    }
{{- template "mv_epilogue" .}}
}

{{define "mvq_steps"}}
        for (var s = 0u; s < XU; s += T) {
            let u = u0 + s + t;
            if (u < nu) {
                var x4 = vec4<f32>(0.0);
                for (var k = 0u; k < 8u; k++) {
                    xs[k] = xsh[k][s + t];
                    x4 += xs[k];
                }
                let sx = hsum(x4);
                for (var i = 0u; i < RPT; i++) {
                    acc[i] += udot(rb[i], u, &xs, sx);
{{- if .SwiGLU}}
                    acc[RPT + i] += udot_u(rb[i], u, &xs, sx);
{{- end}}
                }
            }
        }
{{- end}}
