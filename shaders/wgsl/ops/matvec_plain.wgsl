// Matrix-vector product for decode, f32/f16/bf16 weights: as matvec_q, but
// the weights are bound as vec4<u32> and the threads of a group take
// consecutive 16-byte vectors, so a warp's load instruction reads one
// contiguous span. Rows whose length is not a whole number of vectors (K not
// a multiple of EPV) take an element-wise path. x and w are bound as vec4:
// pad both bindings to 16 bytes. With Key.Norm each thread multiplies the x
// it reads by the norm weight nw and sums its squares; every row group reads
// all of x, so only group 0's sums go into the norm (mv_norm_reduce).
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
{{- if .Norm}}
    var ssq = 0.0;
{{- end}}
    if ((K % EPV) == 0u) {
        let nv = K / EPV;
        for (var c = t; c < nv; c += T) {
{{- template "mv_plain_x" .}}
            for (var i = 0u; i < RPT; i++) {
                acc[i] += vdot(w[rb[i] / EPV + c], x0, x1);
{{- if .SwiGLU}}
                acc[RPT + i] += vdot(wu[rb[i] / EPV + c], x0, x1);
{{- end}}
            }
        }
    } else {
        for (var c = t; c < (K + 7u) / 8u; c += T) {
{{- if .Norm}}
            for (var e = c * 8u; e < min(c * 8u + 8u, K); e++) {
                let xe = x[e >> 2u][e & 3u];
                ssq += xe * xe;
                let xn = xe * nw[e >> 2u][e & 3u];
                for (var i = 0u; i < RPT; i++) {
                    acc[i] += dq(rb[i], e) * xn;
{{- if .SwiGLU}}
                    acc[RPT + i] += dq_u(rb[i], e) * xn;
{{- end}}
                }
            }
{{- else}}
            for (var i = 0u; i < RPT; i++) {
                acc[i] += dot8(rb[i], c * 8u, K);
{{- if .SwiGLU}}
                acc[RPT + i] += dot8_u(rb[i], c * 8u, K);
{{- end}}
            }
{{- end}}
        }
    }
{{- if .Norm}}
    if (g != 0u) {
        ssq = 0.0; // the other groups read the same x
    }
{{- end}}
{{- template "mv_epilogue" .}}
}
