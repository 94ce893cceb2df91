{{define "mvq_persist"}}
// Persistent variant (Key.Persist): a grid of G workgroups, each looping over
// the row blocks first, first+G, ... . Without it a workgroup stages x for
// every ROWS rows (8 KB from L2 per 32 rows of the lm head, in barrier
// rounds) and pays a launch and a multi-level reduction per block; here,
// when x fits the staging array (nu <= XU), it is staged once and a block
// costs one barrier (its reduction's). Otherwise each block stages x in
// rounds as the plain kernel does.
const HALF: u32 = WG * NACC; // red holds two halves, alternated per block

// Sum of the T partials of one row: the writing thread adds them itself,
// so the reduction needs one barrier and no tree levels.
fn red_sum_all(i: u32) -> f32 {
    var v = 0.0;
    for (var j = 0u; j < T; j++) {
        v += red[i + j];
    }
    return v;
}

@compute @workgroup_size({{.WG}})
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
    let K = p.K;
    let N = p.N;
    let G = nwg.x * nwg.y;
    let first = wg_linear(wid, nwg);
    let nblk = (N + ROWS - 1u) / ROWS;
    let g = lid / T; // row group: rows row0 + g*RPT .. + RPT-1
    let t = lid % T;
    let nu = K / 32u;
    let once = nu <= XU; // uniform: x is staged by the first block only
    var xs: array<vec4<f32>, 8>;
    var rb: array<u32, RPT>;
    var acc: array<f32, NACC>;
{{- if .Norm}}
    var ssq = 0.0;
    var rnp = 0.0;
{{- end}}
    var it = 0u;
    for (var blk = first; blk < nblk; blk += G) {
        let row0 = blk * ROWS;
        for (var i = 0u; i < RPT; i++) {
            // Rows past N repeat the last row: wasted but in bounds.
            rb[i] = row_base(min(row0 + g * RPT + i, N - 1u), K);
            acc[i] = 0.0;
{{- if .SwiGLU}}
            acc[RPT + i] = 0.0;
{{- end}}
        }
        for (var u0 = 0u; u0 < nu; u0 += XU) {
            if (!once || blk == first) {
{{- template "mvq_stage" .}}
                workgroupBarrier();
            }
{{- template "mvq_steps" .}}
            if (!once) {
                workgroupBarrier(); // xsh is restaged next round
            }
        }
{{- if .Norm}}
        if (blk == first) {
            // ssq now covers all of x once (later restaging adds to it unread).
{{- template "mv_norm_reduce" .}}
            rnp = rn;
        }
{{- end}}
        let h = (it & 1u) * HALF;
        for (var a = 0u; a < NACC; a++) {
            red[h + (g * NACC + a) * T + t] = acc[a];
        }
        workgroupBarrier();
        if (t < RPT && row0 + g * RPT + t < N) {
            let row = row0 + g * RPT + t;
{{- if .SwiGLU}}
            var v = {{.ActFn}}({{if .Norm}}rnp * {{end}}red_sum_all(h + (g * NACC + t) * T)) * ({{if .Norm}}rnp * {{end}}red_sum_all(h + (g * NACC + RPT + t) * T));
{{- else}}
            var v = {{if .Norm}}rnp * {{end}}red_sum_all(h + (g * NACC + t) * T);
{{- end}}
{{- if .Bias}}
            v += bias[row];
{{- end}}
{{- if .Residual}}
            v += res[row];
{{- end}}
            y[row] = v;
        }
        it++;
    }
}
{{- end}}
