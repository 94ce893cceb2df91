{{define "mv_bindings"}}
struct Params {
    K: u32,
    N: u32,
    eps: f32,
{{- if .PostAdd}}
    eps_post: f32,
{{- else}}
    pad1: u32,
{{- end}}
{{- if .MergeX}}
    splits: u32,
    pad2: u32,
    pad3: u32,
    pad4: u32,
{{- end}}
}

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read> w: array<{{if .VecW}}vec4<u32>{{else}}u32{{end}}>;
@group(0) @binding(2) var<storage, read> x: array<vec4<f32>>;
@group(0) @binding(3) var<storage, read_write> y: array<f32>;
{{- $b := 4}}
{{- if .SwiGLU}}
@group(0) @binding({{$b}}) var<storage, read> wu: array<{{if .VecW}}vec4<u32>{{else}}u32{{end}}>;{{$b = add $b 1}}
{{- end}}
{{- if .Bias}}
@group(0) @binding({{$b}}) var<storage, read> bias: array<f32>;{{$b = add $b 1}}
{{- end}}
{{- if .Residual}}
@group(0) @binding({{$b}}) var<storage, read> res: array<f32>;{{$b = add $b 1}}
{{- end}}
{{- if .Norm}}
@group(0) @binding({{$b}}) var<storage, read> nw: array<vec4<f32>>;{{$b = add $b 1}}
{{- end}}
{{- if .PostAdd}}
// PostAdd: x is y of a post-norm residual add h = pr + RMSNorm(y)·pw
// (Gemma's post-attention norm), which this kernel computes as it stages x,
// workgroup 0 storing h (ph) for the block's own residual add.
@group(0) @binding({{$b}}) var<storage, read> pr: array<vec4<f32>>;{{$b = add $b 1}}
@group(0) @binding({{$b}}) var<storage, read> pw: array<vec4<f32>>;{{$b = add $b 1}}
@group(0) @binding({{$b}}) var<storage, read_write> ph: array<vec4<f32>>;{{$b = add $b 1}}
{{- end}}

const WG: u32 = {{.WG}}u;
const ROWS: u32 = {{.Rows}}u;     // rows per workgroup
const RPT: u32 = {{.RPT}}u;       // rows per thread: each x chunk loaded once serves RPT rows
const T: u32 = WG * RPT / ROWS;   // threads per row group
const NACC: u32 = {{if .SwiGLU}}2u{{else}}1u{{end}} * RPT;

var<workgroup> red: array<f32, {{.RedSize}}>;

// The row reduction halves its partials with a barrier per level only down
// to 8 (fewer for T < 8); the writing thread sums those itself, saving the
// last three barrier levels.
fn red_sum(i: u32) -> f32 {
    var v = 0.0;
    for (var j = 0u; j < min(T, 8u); j++) {
        v += red[i + j];
    }
    return v;
}
{{end}}

{{define "mv_prologue"}}
    let K = p.K;
    let N = p.N;
    let row0 = wg_linear(wid, nwg) * ROWS;
    if (row0 >= N) {
        return; // whole workgroup leaves together: no barrier is skipped by part of it
    }
    let g = lid / T; // row group: rows row0 + g*RPT .. + RPT-1
    let t = lid % T;
    var rb: array<u32, RPT>;
    var acc: array<f32, NACC>;
    for (var i = 0u; i < RPT; i++) {
        // Rows past N repeat the last row: wasted but in bounds, and barriers stay uniform.
        rb[i] = row_base(min(row0 + g * RPT + i, N - 1u), K);
        acc[i] = 0.0;
{{- if .SwiGLU}}
        acc[RPT + i] = 0.0;
{{- end}}
    }
{{end}}

{{define "mv_mergex"}}
{{- if .MergeX}}
    // MergeX: per head the partials' running max M and 1/L (L the sum of
    // e^(m_s - M)·l_s), MU splits loaded a round as attn_merge does, into
    // mh; mvq_stage then merges each staged quad from the splits' sums.
    let S = p.splits;
    let NH = K / MD;
    for (var h = lid; h < NH; h += WG) {
        var st = vec2<f32>(-3.0e38, 0.0); // (M, L)
        var s = 0u;
        for (; s + MU <= S; s += MU) {
            var v: array<vec2<f32>, MU>;
            for (var r = 0u; r < MU; r++) {
                let b = (h * S + s + r) * (MD + 2u);
                v[r] = vec2<f32>(xp(b), xp(b + 1u));
            }
            for (var r = 0u; r < MU; r++) {
                let mn = max(st.x, v[r].x);
                st = vec2<f32>(mn, st.y * exp(st.x - mn) + v[r].y * exp(v[r].x - mn));
            }
        }
        for (; s < S; s++) {
            let b = (h * S + s) * (MD + 2u);
            let mn = max(st.x, xp(b));
            st = vec2<f32>(mn, st.y * exp(st.x - mn) + xp(b + 1u) * exp(xp(b) - mn));
        }
        mh[h] = vec2<f32>(st.x, 1.0 / st.y);
    }
    workgroupBarrier();
{{- end}}
{{end}}

{{define "mv_mergex_decl"}}
{{- if .MergeX}}
// MergeX: x holds attn_decode's partials, [head][split][m, l, HeadDim
// sums], read by element (their rows of HeadDim+2 are not quad-aligned).
fn xp(i: u32) -> f32 {
    return x[i >> 2u][i & 3u];
}

const MD: u32 = {{.HeadDim}}u; // the attention's head size
const MU: u32 = 8u;            // splits loaded a round
const MAXH: u32 = 64u;         // heads at most (MatvecMergeXMaxHeads)
var<workgroup> mh: array<vec2<f32>, MAXH>;

// The merged attention output's quad c (elements 4c..4c+3): Σ_s
// e^(m_s - M)·sums_s / L over the splits of its head.
fn merged_quad(c: u32) -> vec4<f32> {
    let S = p.splits;
    let h = 4u * c / MD;
    let d = 4u * c % MD;
    let mm = mh[h];
    var a = vec4<f32>(0.0);
    var s = 0u;
    for (; s + MU <= S; s += MU) {
        var v: array<vec4<f32>, MU>;
        var wm: array<f32, MU>;
        for (var r = 0u; r < MU; r++) {
            let b = (h * S + s + r) * (MD + 2u);
            wm[r] = xp(b);
            v[r] = vec4<f32>(xp(b + 2u + d), xp(b + 3u + d), xp(b + 4u + d), xp(b + 5u + d));
        }
        for (var r = 0u; r < MU; r++) {
            a += exp(wm[r] - mm.x) * v[r];
        }
    }
    for (; s < S; s++) {
        let b = (h * S + s) * (MD + 2u);
        a += exp(xp(b) - mm.x) * vec4<f32>(xp(b + 2u + d), xp(b + 3u + d), xp(b + 4u + d), xp(b + 5u + d));
    }
    return a * mm.y;
}
{{- end}}
{{end}}

{{define "mv_postadd"}}
{{- if .PostAdd}}
    // PostAdd: the rms of y (x) over the whole row first, in two barrier
    // rounds as mv_norm_reduce; mvq_stage then stages h = pr + y·rny·pw.
    var ssy = 0.0;
    for (var j = lid; j < K / 4u; j += WG) {
        let v = x[j];
        ssy += dot(v, v);
    }
    red[lid] = ssy;
    workgroupBarrier();
    let NLP = {{if lt .WG 16}}{{.WG}}{{else}}16{{end}}u;
    if (lid < NLP) {
        var s = 0.0;
        for (var j = 1u; j < WG / NLP; j++) {
            s += red[lid * (WG / NLP) + j];
        }
        red[lid * (WG / NLP)] += s;
    }
    workgroupBarrier();
    var sy = 0.0;
    for (var i = 0u; i < NLP; i++) {
        sy += red[i * (WG / NLP)];
    }
    let rny = inverseSqrt(sy / f32(K) + p.eps_post);
    let store_h = row0 == 0u; // one workgroup stores h
    workgroupBarrier(); // red is reused
{{- end}}
{{end}}

{{define "mv_norm_reduce"}}
{{- if .Norm}}
    // Fused RMSNorm: every thread summed the squares of the raw x it staged
    // (together all of x, once); rn scales the finished dots. Two barrier
    // rounds rather than a log2(WG)-level tree: NL threads each add WG/NL
    // partials into the first of them, then every thread adds those NL.
    red[lid] = ssq;
    workgroupBarrier();
    let NL = {{if lt .WG 16}}{{.WG}}{{else}}16{{end}}u;
    if (lid < NL) {
        var s = 0.0;
        for (var j = 1u; j < WG / NL; j++) {
            s += red[lid * (WG / NL) + j];
        }
        red[lid * (WG / NL)] += s;
    }
    workgroupBarrier();
    var ss = 0.0;
    for (var i = 0u; i < NL; i++) {
        ss += red[i * (WG / NL)];
    }
    let rn = inverseSqrt(ss / f32(K) + p.eps);
    workgroupBarrier(); // red is reused by the row reduction
{{- end}}
{{end}}

{{define "mv_epilogue"}}
{{- template "mv_norm_reduce" .}}
    // Row a of this thread's group reduces over the T threads of the group
    // in red[((g * NACC) + a) * T + t].
    for (var a = 0u; a < NACC; a++) {
        red[(g * NACC + a) * T + t] = acc[a];
    }
    workgroupBarrier();
    for (var s = T / 2u; s >= 8u; s >>= 1u) { // down to 8 partials, summed by red_sum
        if (t < s) {
            for (var a = 0u; a < NACC; a++) {
                let i = (g * NACC + a) * T + t;
                red[i] += red[i + s];
            }
        }
        workgroupBarrier();
    }
    if (t < RPT && row0 + g * RPT + t < N) {
        let row = row0 + g * RPT + t;
{{- if .SwiGLU}}
        var v = {{.ActFn}}({{if .Norm}}rn * {{end}}red_sum((g * NACC + t) * T)) * ({{if .Norm}}rn * {{end}}red_sum((g * NACC + RPT + t) * T));
{{- else}}
        var v = {{if .Norm}}rn * {{end}}red_sum((g * NACC + t) * T);
{{- end}}
{{- if .Bias}}
        v += bias[row];
{{- end}}
{{- if .Residual}}
        v += res[row];
{{- end}}
        y[row] = v;
    }
{{end}}

{{define "mv_plain_x"}}
        // (matvec_plain and plain matvec_qkv: c, the thread's vector index,
        // and ssq and nw with Key.Norm in scope.) x0, x1: the x vectors that
        // weight vector c meets (x1 only for 8 elements a vector), scaled by
        // the norm weight with the squares of the raw x summed into ssq.
        var x0 = x[c * EPV / 4u];
        var x1 = x0;
        if (EPV == 8u) {
            x1 = x[c * 2u + 1u];
        }
{{- if .Norm}}
        if (EPV == 8u) {
            ssq += dot(x0, x0) + dot(x1, x1);
            x0 *= nw[c * 2u];
            x1 *= nw[c * 2u + 1u];
        } else {
            ssq += dot(x0, x0);
            x0 *= nw[c];
        }
{{- end}}
{{- end}}

{{define "mvq_stage"}}
        // (matvec_q and matvec_qkv: x, xsh, XU, nu, u0, ssq and nw in scope.)
        // Per round the workgroup stages x for units u0..u0+XU-1 (XU*8 vec4s)
        // with consecutive threads loading consecutive vec4s, stored k-major
        // (xsh[k][unit]) so each thread's 8 reads are conflict-free too.
        // Read straight from global memory, every x load instruction of a
        // warp would touch 32 separate 128-byte lines (each thread its own
        // unit's x), which bounded the quantized formats on the H200.
        for (var j = lid; j < XU * 8u; j += WG) {
            let ul = j / 8u;
            var v = vec4<f32>(0.0);
            if (u0 + ul < nu) {
{{- if .MergeX}}
                v = merged_quad(u0 * 8u + j);
{{- else}}
                v = x[u0 * 8u + j];
{{- end}}
{{- if .PostAdd}}
                v = pr[u0 * 8u + j] + v * rny * pw[u0 * 8u + j];
                if (store_h) {
                    ph[u0 * 8u + j] = v;
                }
{{- end}}
{{- if .Norm}}
                ssq += dot(v, v);
                v *= nw[u0 * 8u + j];
{{- end}}
            }
            xsh[j % 8u][ul] = v;
        }
{{- end}}
