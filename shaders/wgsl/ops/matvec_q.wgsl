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
fn wword(i: u32) -> u32 {
    return w[i];
}
{{- if .SwiGLU}}

fn wword_u(i: u32) -> u32 {
    return wu[i];
}
{{- end}}

@compute @workgroup_size({{.WG}})
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
{{- template "mv_prologue" .}}
    var xs: array<vec4<f32>, 8>;
    let nu = K / 32u;
    for (var u = t; u < nu; u += T) {
        var x4 = vec4<f32>(0.0);
        for (var k = 0u; k < 8u; k++) {
            xs[k] = x[u * 8u + k];
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
{{- template "mv_epilogue" .}}
}
