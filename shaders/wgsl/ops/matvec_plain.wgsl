// Matrix-vector product for decode, f32/f16/bf16 weights: as matvec_q, but
// the weights are bound as vec4<u32> and the threads of a group take
// consecutive 16-byte vectors, so a warp's load instruction reads one
// contiguous span. Rows whose length is not a whole number of vectors (K not
// a multiple of EPV) take an element-wise path. x and w are bound as vec4:
// pad both bindings to 16 bytes.
{{template "mv_bindings" .}}
fn wword(i: u32) -> u32 {
    return w[i >> 2u][i & 3u];
}
{{- if .SwiGLU}}

fn wword_u(i: u32) -> u32 {
    return wu[i >> 2u][i & 3u];
}
{{- end}}

@compute @workgroup_size({{.WG}})
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
{{- template "mv_prologue" .}}
    if ((K % EPV) == 0u) {
        let nv = K / EPV;
        for (var c = t; c < nv; c += T) {
            let x0 = x[c * EPV / 4u];
            var x1 = x0;
            if (EPV == 8u) {
                x1 = x[c * 2u + 1u];
            }
            for (var i = 0u; i < RPT; i++) {
                acc[i] += vdot(w[rb[i] / EPV + c], x0, x1);
{{- if .SwiGLU}}
                acc[RPT + i] += vdot(wu[rb[i] / EPV + c], x0, x1);
{{- end}}
            }
        }
    } else {
        for (var c = t; c < (K + 7u) / 8u; c += T) {
            for (var i = 0u; i < RPT; i++) {
                acc[i] += dot8(rb[i], c * 8u, K);
{{- if .SwiGLU}}
                acc[RPT + i] += dot8_u(rb[i], c * 8u, K);
{{- end}}
            }
        }
    }
{{- template "mv_epilogue" .}}
}
