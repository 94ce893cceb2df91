// Matrix-vector product for decode over row-interleaved weights
// (Key.Interleave, interleave.go): y[n] = Σ_k W[n][k]·x[k] (+ bias[n])
// (+ res[n]), with the fused RMSNorm of x as matvec_q.wgsl.
//
// A workgroup owns RPT groups of IL rows. Thread (s, r) = lid as s·IL + r
// owns row r of each group and slice s of every staged x round, so the
// threads of a warp own consecutive rows and read vector v of their rows
// (stored at v·IL + r, IL apart per v) as one coalesced run of 16-byte
// vectors, and read the same staged x (a broadcast, no bank conflicts).
// Each x unit read from workgroup memory serves the thread's RPT rows. A
// row needs no reduction across threads when WG = IL; with S = WG/IL
// slices the S partials of a row meet once at the end. The format's unit
// dots (udot) run unchanged on row-relative byte offsets (rb = 0) through
// the wvec4 and wword below.
{{template "mv_bindings" .}}
const XU: u32 = {{.XU}}u;
const IL: u32 = {{.Interleave}}u;
const S: u32 = WG / IL;
var<workgroup> xsh: array<array<vec4<f32>, {{.XU}}>, 8>; // [k][unit]: the unit index is clamped alone
// The thread's row: its first vector and the distance between its vectors
// (IL, or the row count of a short last group).
var<private> il_base: u32;
var<private> il_stride: u32;

fn wword(i: u32) -> u32 {
    return w[il_base + (i >> 2u) * il_stride][i & 3u];
}

@compute @workgroup_size({{.WG}})
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
    let K = p.K;
    let N = p.N;
    let row0 = wg_linear(wid, nwg) * ROWS;
    if (row0 >= N) {
        return; // whole workgroup leaves together
    }
    let r = lid % IL;
    let s = lid / IL;
    let vpr = row_base(1u, K) >> 4u; // vectors a row
    // Group i starts at row row0 + i·IL; only the matrix's last group may
    // be short, and a group past N is skipped.
    var base: array<u32, RPT>;
    var stride: array<u32, RPT>;
    var acc: array<f32, RPT>;
    for (var i = 0u; i < RPT; i++) {
        let g0 = min(row0 + i * IL, N - 1u);
        let rows = min(IL, N - g0);
        stride[i] = rows;
        // Threads past a short group repeat its last row: in bounds, and
        // barriers stay uniform.
        base[i] = g0 * vpr + min(r, rows - 1u);
        acc[i] = 0.0;
    }
    var xs: array<vec4<f32>, 8>;
    let nu = K / 32u;
{{- if .Norm}}
    var ssq = 0.0;
{{- end}}
    for (var u0 = 0u; u0 < nu; u0 += XU) {
{{- template "mvq_stage" .}}
        workgroupBarrier();
        for (var j = s; j < XU; j += S) {
            let u = u0 + j;
            if (u < nu) {
                var x4 = vec4<f32>(0.0);
                for (var k = 0u; k < 8u; k++) {
                    xs[k] = xsh[k][j];
                    x4 += xs[k];
                }
                let sx = hsum(x4);
                for (var i = 0u; i < RPT; i++) {
                    il_base = base[i];
                    il_stride = stride[i];
                    acc[i] += udot(0u, u, &xs, sx);
                }
            }
        }
        workgroupBarrier(); // xsh is restaged next round
    }
{{- template "mv_norm_reduce" .}}
    for (var i = 0u; i < RPT; i++) {
        red[i * WG + lid] = acc[i];
    }
    workgroupBarrier();
    for (var i = 0u; i < RPT; i++) {
        let row = row0 + i * IL + r;
        if (s == 0u && row < N) {
            var v = 0.0;
            for (var j = 0u; j < S; j++) {
                v += red[i * WG + j * IL + r];
            }
{{- if .Norm}}
            v *= rn;
{{- end}}
{{- if .Bias}}
            v += bias[row];
{{- end}}
{{- if .Residual}}
            v += res[row];
{{- end}}
            y[row] = v;
        }
    }
}
