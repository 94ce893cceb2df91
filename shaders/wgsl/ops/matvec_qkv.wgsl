// Fused Q, K, V projections for decode: one dispatch computes
// yq = Wq·x, yk = Wk·x, yv = Wv·x (+ their biases), each matrix in its own
// format (Key.Weight, WeightK, WeightV). Rows are numbered across the three
// matrices (Nq + Nk + Nv); a row group of RPT rows must not straddle two
// matrices, so Nq and Nk must be multiples of RPT (real models: multiples of
// 64). Otherwise as matvec_q, through each format's 32-element udot, so K
// must be a multiple of 32. x is bound as vec4 (pad to 16 bytes).
//
// With Key.HeadDim set (RoPE and the KV-cache write fused in, decode only,
// normal RoPE pairing) the epilogue also rotates q and k and writes k and v
// into the caches [KVHeads][Ctx][HeadDim] at position Pos0, which saves
// the rope_kv dispatch after it. A pair (2j, 2j+1) of a head is two rows of
// one row group (RPT even, heads start at multiples of RPT), so a writing
// thread reads its partner's finished sum from red; y_k and y_v still get the
// unrotated rows. Angles as rope.wgsl. With Key.Neox (NEOX pairing: dims j
// and j + NRot/2 of a head) the group's q and k rows are taken in pair order
// instead: its row 2j of a head computes weight row j and 2j+1 computes row
// j + NRot/2 (phys), so the pair is again rows (2j, 2j+1) of one group while
// every weight, bias, output and cache element keeps its own index.
//
// An f16 cache (Key.KV f16, .KVF16) packs two elements a u32 word, so each
// word (physical elements 2c, 2c+1 of a head row) is written whole by one
// thread: the one of its first element's group row (V, unrotated dims and
// normal RoPE: rows 2c and 2c+1 of one group). With NEOX the group rows
// 4i..4i+3 of a head compute physical rows 2i, 2i+h, 2i+1, 2i+1+h
// (h = NRot/2, even) and hold two words, (2i, 2i+1) written by row 4i and
// (2i+h, 2i+1+h) by row 4i+1; both rotate all four. A writer reads the rows
// it needs from red, where every row of the workgroup has its sum after the
// row reduction, so the four rows must lie in one workgroup: Rows, Nq, Nk
// and HeadDim multiples of 4 (the lowering also wants NRot % 4 == 0).
struct Params {
    K: u32,
    Nq: u32,
    Nk: u32,
    Nv: u32,
    eps: f32,
    NRot: u32,
    Pos0: u32,
    Ctx: u32,
    freq_base: f32,
    freq_scale: f32,
    attn_factor: f32,
    eps_post: f32, // Key.PostAdd's post-norm epsilon (else unused)
}

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read> w: array<{{if .VecW}}vec4<u32>{{else}}u32{{end}}>;
@group(0) @binding(2) var<storage, read> x: array<vec4<f32>>;
@group(0) @binding(3) var<storage, read_write> y: array<f32>;
@group(0) @binding(4) var<storage, read> wk: array<{{if .VecK}}vec4<u32>{{else}}u32{{end}}>;
@group(0) @binding(5) var<storage, read_write> yk: array<f32>;
@group(0) @binding(6) var<storage, read> wv: array<{{if .VecV}}vec4<u32>{{else}}u32{{end}}>;
@group(0) @binding(7) var<storage, read_write> yv: array<f32>;
{{- if .Bias}}
@group(0) @binding(8) var<storage, read> bias: array<f32>;
@group(0) @binding(9) var<storage, read> bias_k: array<f32>;
@group(0) @binding(10) var<storage, read> bias_v: array<f32>;
{{- end}}
{{- if .Norm}}
@group(0) @binding({{if .Bias}}11{{else}}8{{end}}) var<storage, read> nw: array<vec4<f32>>;
{{- end}}
{{- if .HeadDim}}
{{- $b := 8}}{{if .Bias}}{{$b = 11}}{{end}}{{if .Norm}}{{$b = add $b 1}}{{end}}
@group(0) @binding({{$b}}) var<storage, read_write> k_cache: array<{{if .KVF16}}u32{{else}}f32{{end}}>;
@group(0) @binding({{add $b 1}}) var<storage, read_write> v_cache: array<{{if .KVF16}}u32{{else}}f32{{end}}>;
{{- if .FreqFactors}}
@group(0) @binding({{add $b 2}}) var<storage, read> freq_factors: array<f32>;
{{- end}}
const HD: u32 = {{.HeadDim}}u;

// cos and sin of pair j's angle at position pos (as rope.wgsl).
fn angle(pos: u32, j: u32) -> vec2<f32> {
    var theta = p.freq_scale * f32(pos) * pow(p.freq_base, -2.0 * f32(j) / f32(p.NRot));
{{- if .FreqFactors}}
    theta = theta / freq_factors[j];
{{- end}}
    return vec2<f32>(cos(theta), sin(theta)) * p.attn_factor;
}
{{- end}}
{{- if .PostAdd}}
{{- $b := 8}}{{if .Bias}}{{$b = 11}}{{end}}{{if .Norm}}{{$b = add $b 1}}{{end}}
{{- if .HeadDim}}{{$b = add $b 2}}{{if .FreqFactors}}{{$b = add $b 1}}{{end}}{{end}}
// PostAdd: x is y of a post-norm residual add h = pr + RMSNorm(y)·pw (the
// previous layer's post-FFN norm, Gemma), computed as x is staged, workgroup
// 0 storing h (ph) for the later residual add that reads it.
@group(0) @binding({{$b}}) var<storage, read> pr: array<vec4<f32>>;
@group(0) @binding({{add $b 1}}) var<storage, read> pw: array<vec4<f32>>;
@group(0) @binding({{add $b 2}}) var<storage, read_write> ph: array<vec4<f32>>;
{{- end}}

// phys is the weight (and output) row that the group's row r of matrix m
// computes: r itself, or with NEOX pairing the q/k row in pair order.
fn phys(m: u32, r: u32) -> u32 {
{{- if and .HeadDim .Neox}}
    let e = r % HD;
    if (m == 2u || e >= p.NRot) {
        return r;
    }
    return r - e + (e >> 1u) + (e & 1u) * (p.NRot >> 1u);
{{- else}}
    return r;
{{- end}}
}

const WG: u32 = {{.WG}}u;
const ROWS: u32 = {{.Rows}}u;
const RPT: u32 = {{.RPT}}u;
const T: u32 = WG * RPT / ROWS;
const NACC: u32 = RPT;

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
{{- if not .Plain}}
const XU: u32 = {{.XU}}u; // x units staged per round, as matvec_q
var<workgroup> xsh: array<array<vec4<f32>, {{.XU}}>, 8>; // [k][unit]: the unit index is clamped alone
{{- end}}

// Packed matrices are bound as vec4 for their aligned quant loads (wvec4).
fn wword(i: u32) -> u32 {
    return w[{{if .VecW}}i >> 2u][i & 3u{{else}}i{{end}}];
}

fn wword_k(i: u32) -> u32 {
    return wk[{{if .VecK}}i >> 2u][i & 3u{{else}}i{{end}}];
}

fn wword_v(i: u32) -> u32 {
    return wv[{{if .VecV}}i >> 2u][i & 3u{{else}}i{{end}}];
}

@compute @workgroup_size({{.WG}})
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
    let K = p.K;
    let total = p.Nq + p.Nk + p.Nv;
    let row0 = wg_linear(wid, nwg) * ROWS;
    if (row0 >= total) {
        return;
    }
    let g = lid / T;
    let t = lid % T;
    // Which matrix this group's rows belong to, and the first row within it.
    var m = 0u;
    var r0 = row0 + g * RPT;
    var n = p.Nq;
    if (r0 >= p.Nq + p.Nk) {
        m = 2u;
        r0 -= p.Nq + p.Nk;
        n = p.Nv;
    } else if (r0 >= p.Nq) {
        m = 1u;
        r0 -= p.Nq;
        n = p.Nk;
    }
    // Groups past the last row (r0 >= n) compute row n-1 again and write nothing.
    var acc: array<f32, NACC>;
    var rb: array<u32, RPT>;
    for (var i = 0u; i < RPT; i++) {
        acc[i] = 0.0;
    }
    switch m {
        case 0u: {
            for (var i = 0u; i < RPT; i++) {
                rb[i] = row_base(phys(m, min(r0 + i, n - 1u)), K);
            }
        }
        case 1u: {
            for (var i = 0u; i < RPT; i++) {
                rb[i] = row_base_k(phys(m, min(r0 + i, n - 1u)), K);
            }
        }
        default: {
            for (var i = 0u; i < RPT; i++) {
                rb[i] = row_base_v(min(r0 + i, n - 1u), K);
            }
        }
    }
{{- template "mv_postadd" .}}
{{- if .Norm}}
    var ssq = 0.0;
{{- end}}
{{- if .Plain}}
    // Plain formats (one EPV for all three matrices): as matvec_plain, each
    // thread reads its 16-byte weight vectors and the x vectors they meet
    // straight from global memory (consecutive threads, consecutive
    // vectors), so the weight loads are not held behind an x staging round
    // and its barrier. Every row group reads all of x, so only group 0's
    // squares go into the norm.
    let nv = K / EPV;
    for (var c = t; c < nv; c += T) {
{{- template "mv_plain_x" .}}
        switch m {
            case 0u: {
                for (var i = 0u; i < RPT; i++) {
                    acc[i] += vdot(w[rb[i] / EPV + c], x0, x1);
                }
            }
            case 1u: {
                for (var i = 0u; i < RPT; i++) {
                    acc[i] += vdot_k(wk[rb[i] / EPV + c], x0, x1);
                }
            }
            default: {
                for (var i = 0u; i < RPT; i++) {
                    acc[i] += vdot_v(wv[rb[i] / EPV + c], x0, x1);
                }
            }
        }
    }
{{- if .Norm}}
    if (g != 0u) {
        ssq = 0.0;
    }
{{- end}}
{{- else}}
    var xs: array<vec4<f32>, 8>;
    let nu = K / 32u;
    // x staged XU units per round as in matvec_q (coalesced loads, k-major).
    for (var u0 = 0u; u0 < nu; u0 += XU) {
{{- template "mvq_stage" .}}
        workgroupBarrier();
        for (var s = 0u; s < XU; s += T) {
            let u = u0 + s + t;
            if (u < nu) {
                var x4 = vec4<f32>(0.0);
                for (var k = 0u; k < 8u; k++) {
                    xs[k] = xsh[k][s + t];
                    x4 += xs[k];
                }
                let sx = hsum(x4);
                switch m {
                    case 0u: {
                        for (var i = 0u; i < RPT; i++) {
                            acc[i] += udot(rb[i], u, &xs, sx);
                        }
                    }
                    case 1u: {
                        for (var i = 0u; i < RPT; i++) {
                            acc[i] += udot_k(rb[i], u, &xs, sx);
                        }
                    }
                    default: {
                        for (var i = 0u; i < RPT; i++) {
                            acc[i] += udot_v(rb[i], u, &xs, sx);
                        }
                    }
                }
            }
        }
        workgroupBarrier();
    }
{{- end}}
{{- template "mv_norm_reduce" .}}
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
    if (t < RPT && r0 + t < n) {
        let lrow = r0 + t; // the group's row; row is the one it computed
        let row = phys(m, lrow);
        let v = row_out(m, {{if .Norm}}rn * {{end}}red_sum((g * NACC + t) * T), row);
{{- if .HeadDim}}
        let e = lrow % HD;
        var rv = v;
        if (m < 2u && e < p.NRot) {
            // The partner (group row lrow ^ 1) is in this group: its sum is in red.
            let o = row_out(m, {{if .Norm}}rn * {{end}}red_sum((g * NACC + (t ^ 1u)) * T), phys(m, lrow ^ 1u));
            let cs = angle(p.Pos0, e >> 1u);
            if ((e & 1u) == 0u) {
                rv = v * cs.x - o * cs.y;
            } else {
                rv = o * cs.y + v * cs.x;
            }
        }
{{- if .Ring}}
        let dst = ((row / HD) * p.Ctx + p.Pos0 % p.Ctx) * HD + row % HD; // a ring: row Pos0 mod Ctx
{{- else}}
        let dst = ((row / HD) * p.Ctx + p.Pos0) * HD + row % HD;
{{- end}}
{{- end}}
        switch m {
            case 0u: {
                y[row] = {{if .HeadDim}}rv{{else}}v{{end}};
            }
            case 1u: {
                yk[row] = v;
{{- if and .HeadDim (not .KVF16)}}
                k_cache[dst] = rv;
{{- end}}
            }
            default: {
                yv[row] = v;
{{- if and .HeadDim (not .KVF16)}}
                v_cache[dst] = v;
{{- end}}
            }
        }
{{- if .KVF16}}
        if (m > 0u) {
            kv_word(m, g * RPT + t, lrow, e, dst, {{if .Norm}}rn{{else}}1.0{{end}});
        }
{{- end}}
    }
}
{{- if .KVF16}}

// fin is the finished value of the workgroup's local row l (matrix m's group
// row lrow), its sum scaled by s (the fused norm's, or 1).
fn fin(m: u32, l: u32, lrow: u32, s: f32) -> f32 {
    return row_out(m, s * red_sum(l * T), phys(m, lrow));
}

// kv_word writes the f16 cache word of K or V (m 1 or 2) that the local row
// l (group row lrow, element e of its head, cache element dst) leads, if it
// leads one; see the header.
fn kv_word(m: u32, l: u32, lrow: u32, e: u32, dst: u32, s: f32) {
    var word: vec2<f32>;
    if (m == 2u || e >= p.NRot) {
        if ((e & 1u) != 0u) {
            return;
        }
        word = vec2<f32>(fin(m, l, lrow, s), fin(m, l + 1u, lrow + 1u, s));
    } else {
{{- if .Neox}}
        let q = e & 3u;
        if (q > 1u) {
            return;
        }
        // Rows 4i, 4i+1 are pair 2i (phys 2i, 2i+h), rows 4i+2, 4i+3 pair 2i+1.
        let a0 = fin(m, l - q, lrow - q, s);
        let a1 = fin(m, l - q + 1u, lrow - q + 1u, s);
        let b0 = fin(m, l - q + 2u, lrow - q + 2u, s);
        let b1 = fin(m, l - q + 3u, lrow - q + 3u, s);
        let j = (e - q) >> 1u;
        let ca = angle(p.Pos0, j);
        let cb = angle(p.Pos0, j + 1u);
        if (q == 0u) {
            word = vec2<f32>(a0 * ca.x - a1 * ca.y, b0 * cb.x - b1 * cb.y);
        } else {
            word = vec2<f32>(a0 * ca.y + a1 * ca.x, b0 * cb.y + b1 * cb.x);
        }
{{- else}}
        if ((e & 1u) != 0u) {
            return;
        }
        let x0 = fin(m, l, lrow, s);
        let x1 = fin(m, l + 1u, lrow + 1u, s);
        let cs = angle(p.Pos0, e >> 1u);
        word = vec2<f32>(x0 * cs.x - x1 * cs.y, x0 * cs.y + x1 * cs.x);
{{- end}}
    }
    if (m == 1u) {
        k_cache[dst >> 1u] = f2h(word);
    } else {
        v_cache[dst >> 1u] = f2h(word);
    }
}
{{- end}}

// row_out is row's finished value in matrix m from its reduced dot d.
fn row_out(m: u32, d: f32, row: u32) -> f32 {
{{- if .Bias}}
    switch m {
        case 0u: {
            return d + bias[row];
        }
        case 1u: {
            return d + bias_k[row];
        }
        default: {
            return d + bias_v[row];
        }
    }
{{- else}}
    return d;
{{- end}}
}

