// Matrix-vector product for decode, f32/f16/bf16 weights: as matvec_q, but
// the weights are bound as vec4<u32> and consecutive threads take
// consecutive 16-byte vectors, so each load instruction of a warp reads one
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

fn xv(i: u32) -> vec4<f32> {
    return x[i];
}

@compute @workgroup_size({{.WG}})
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
    let K = p.K;
    let N = p.N;
    let row0 = wg_linear(wid, nwg) * ROWS;
    if (row0 >= N) {
        return;
    }
    let r = lid / T;
    let t = lid % T;
    let row = min(row0 + r, N - 1u);
    let rb = row_base(row, K);
    var acc = 0.0;
{{- if .SwiGLU}}
    var accu = 0.0;
{{- end}}
    if ((K % EPV) == 0u) {
        let nv = K / EPV;
        let vb = rb / EPV;
        for (var c = t; c < nv; c += T) {
            let x0 = x[c * EPV / 4u];
            var x1 = x0;
            if (EPV == 8u) {
                x1 = x[c * 2u + 1u];
            }
            acc += vdot(w[vb + c], x0, x1);
{{- if .SwiGLU}}
            accu += vdot(wu[vb + c], x0, x1);
{{- end}}
        }
    } else {
        for (var c = t; c < (K + 7u) / 8u; c += T) {
            acc += dot8(rb, c * 8u, K);
{{- if .SwiGLU}}
            accu += dot8_u(rb, c * 8u, K);
{{- end}}
        }
    }
{{template "mv_epilogue" .}}
}
