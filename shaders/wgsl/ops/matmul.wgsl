// Tiled matrix-matrix product for prefill:
// y[m][n] = Σ_k x[m][k]·W[n][k] (+ bias[n]) (+ res[m][n]).
// A workgroup of 16×16 threads computes a TM×TN tile of y. Each K step of TK
// stages x's TM×TK tile and W's TN×TK tile (dequantized once per tile, not
// per output) in workgroup memory, transposed to k-major vec4 rows, so a
// thread's inner step is 2·(RM+RN)/4... vec4 reads feeding RM·RN FMAs.
// Thread (tx, ty) owns rows ty*4 + 64a + {0..3} for a < RM/4 and columns
// tx*4 + 64c + {0..3} for c < RN/4 (64 = 16 threads × 4).
// With SplitK (grid z = slices), workgroup z reduces over its slice of K
// only and writes y's slice z (elements from z·Stride); split_sum adds them.
// With TK % 4 == 0, a staging thread takes 4 consecutive k of one row:
// dq4 dequantizes them with one word load and one scale (packed q4_0/q8_0,
// q4_K, f16; other formats call dq 4 times), and the next step's x and W
// are read into registers before this step's FMAs, so global latency hides
// behind them (H200, q4_0 packed 512×2048×8192: 0.76 → 0.58 ms; pp512
// 8335 → 11405 tok/s).
// With Key.QKV the product's N = Nq + Nk + Nv columns are the rows of three
// matrices (Q, K and V projections of one x): see wword below.
struct Params {
    M: u32,
    N: u32,
    K: u32,
    Stride: u32,
    Nq: u32,
    Nk: u32,
    Off0: u32, // Key.OneW: where each matrix starts in w, in w's vectors
    Off1: u32,
    Off2: u32,
    pad0: u32,
}

@group(0) @binding(0) var<uniform> p: Params;
{{- /* WLoad (tmplData, Key.XVec with a plain format): W rows start on
4-element vectors as x's do, so w (wk, wv, wu) is bound as vectors of WLoad
words and a staging slot's 4 elements are one load, wload(i) (8 bytes for
f16 and bf16, 16 for f32; converted by mm_dq.wgsl's wcv); wword picks a
word from one. Each kind of matmul below defines its reader $rd: wload,
or without WLoad wword over u32 bindings. */}}
{{- $wt := "u32"}}{{$rd := "wword(i: u32) -> u32"}}
{{- if eq .WLoad 2}}{{$wt = "vec2<u32>"}}{{$rd = "wload(i: u32) -> vec2<u32>"}}
{{- else if eq .WLoad 4}}{{$wt = "vec4<u32>"}}{{$rd = "wload(i: u32) -> vec4<u32>"}}{{end}}
@group(0) @binding(1) var<storage, read> w: array<{{$wt}}>;
{{- if .XVec}}
@group(0) @binding(2) var<storage, read> x: array<vec4<f32>>; // Key.XVec: K % 4 == 0
{{- else}}
@group(0) @binding(2) var<storage, read> x: array<f32>;
{{- end}}
@group(0) @binding(3) var<storage, read_write> y: array<f32>;
{{- $b := 4}}
{{- if .Bias}}
@group(0) @binding({{$b}}) var<storage, read> bias: array<f32>;{{$b = add $b 1}}
{{- end}}
{{- if .Residual}}
@group(0) @binding({{$b}}) var<storage, read> res: array<f32>;{{$b = add $b 1}}
{{- end}}
{{- if .QKV}}
{{- if not .OneW}}
@group(0) @binding({{$b}}) var<storage, read> wk: array<{{$wt}}>;{{$b = add $b 1}}
@group(0) @binding({{$b}}) var<storage, read> wv: array<{{$wt}}>;{{$b = add $b 1}}
{{- end}}
{{- if .Bias}}
@group(0) @binding({{$b}}) var<storage, read> bias_k: array<f32>;{{$b = add $b 1}}
@group(0) @binding({{$b}}) var<storage, read> bias_v: array<f32>;{{$b = add $b 1}}
{{- end}}
{{- if not .SplitK}}
@group(0) @binding({{$b}}) var<storage, read_write> yk: array<f32>;{{$b = add $b 1}}
@group(0) @binding({{$b}}) var<storage, read_write> yv: array<f32>;{{$b = add $b 1}}
{{- end}}

// Key.QKV: output column n < Nq is row n of W (Q), n < Nq + Nk row n - Nq
// of wk, the rest rows of wv (all one format, same K): one prefill matmul
// for the three projections, whose K and V alone (N = 512 or 128) give
// few workgroups. Unsplit, the epilogue writes Q, K and V rows to y, yk
// and yv (each its own bias); split, slices hold [M][N] partials that
// split_sum (Key.QKV) scatters. wsel picks the matrix a staging slot reads
// (uniform over a warp unless a tile straddles Nq or Nq + Nk).
{{- if .MixedQKV}}
// Mixed formats (Key.WeightK/WeightV): each matrix has its own staging
// reads (mm_dq.wgsl copies suffixed _k and _v), so each its own wword.

fn wword(i: u32) -> u32 {
    return w[i];
}

fn wword_k(i: u32) -> u32 {
    return wk[i];
}

fn wword_v(i: u32) -> u32 {
    return wv[i];
}
{{- else}}
var<private> wsel: u32;
{{- if .OneW}}

// Key.OneW: the matrices lie in w at p.Off0 (Q), p.Off1 (K), p.Off2 (V);
// wsel picks an offset, not a binding, so the load is not in a branch.
fn moff() -> u32 {
    return select(select(p.Off2, p.Off1, wsel == 1u), p.Off0, wsel == 0u);
}
{{- else}}

fn {{$rd}} {
    if (wsel == 0u) {
        return w[i];
    }
    if (wsel == 1u) {
        return wk[i];
    }
    return wv[i];
}
{{- end}}
{{- end}}

// Column n's matrix (x) and row in it (y).
fn qkv_row(n: u32) -> vec2<u32> {
    if (n < p.Nq) {
        return vec2<u32>(0u, n);
    }
    if (n < p.Nq + p.Nk) {
        return vec2<u32>(1u, n - p.Nq);
    }
    return vec2<u32>(2u, n - p.Nq - p.Nk);
}

// Column n's bias (0 without Key.Bias).
fn qkv_bias(n: u32) -> f32 {
{{- if .Bias}}
    let r = qkv_row(n);
    if (r.x == 0u) {
        return bias[r.y];
    }
    if (r.x == 1u) {
        return bias_k[r.y];
    }
    return bias_v[r.y];
{{- else}}
    return 0.0;
{{- end}}
}
{{- else if .SwiGLU}}
{{- if not .OneW}}
@group(0) @binding({{$b}}) var<storage, read> wu: array<{{$wt}}>;
{{- end}}

// Key.SwiGLU: y[m][n] = silu(Σ_k x·Wg[n][k]) · Σ_k x·Wu[n][k] for N = the
// gate/up rows (grid x covers 2N columns). A TN-column tile holds gate rows
// n0..n0+TN/2-1 in its first half and the same up rows in its second, so a
// thread's column pair (c, c + RN/8) is one n's gate and up (TN = 128);
// the epilogue writes silu(g)·u, saving silu_mul and the 2·M·N round trip.
// wsel picks the matrix a staging slot reads: uniform across a warp, whose
// slots lie in one half of the tile.
var<private> wsel: u32;
{{- if .OneW}}

// Key.OneW: gate rows start p.Off0 vectors into w, up rows p.Off1; wsel
// picks an offset, not a binding, so the load is not in a branch.
fn moff() -> u32 {
    return select(p.Off1, p.Off0, wsel == 0u);
}
{{- else}}

fn {{$rd}} {
    if (wsel == 0u) {
        return w[i];
    }
    return wu[i];
}
{{- end}}
{{- else}}

fn {{$rd}} {
    return w[i];
}
{{- end}}
{{- if .OneW}}

// Key.OneW: vector i of the matrix wsel picks (moff above).
fn wload(i: u32) -> {{$wt}} {
    return w[i + moff()];
}
{{- end}}
{{- if .WLoad}}

// Word i of the vectors (the scalar dq's reads).
fn wword(i: u32) -> u32 {
    return wload(i >> {{if eq .WLoad 2}}1{{else}}2{{end}}u)[i & {{if eq .WLoad 2}}1{{else}}3{{end}}u];
}
{{- end}}
{{- template "mm_dq" .}}
{{- /* Formats whose 32-element blocks (q4_K: sub-blocks) carry a scale
pair, with 4 k per staging thread: the pair (dsc) is cached per slot (wsm,
wsk) and decoded only when a step enters a new block (every 4th step at TK
= 8); dqs decodes 4 elements with it. q4_K: H100 512×2048×8192 128×128×8
0.72 → 0.59 ms, 512×2048×512 64×64×16 0.15 → 0.13 ms; packed q4_0 / q8_0:
H200 0.57 → 0.56, 0.58 → 0.56 ms, pp512 q4_0 13.1k → 13.65k tok/s. */}}
{{- /* The same cache for q4_0 / q8_0 in ggml order (18- and 34-byte blocks,
whose 4 bytes of a dq4 start at an even offset: two word loads and a
funnel shift instead of 4 rd8 and 4 rdh; Qwen2.5-0.5B's K = 896 rows are
not packable) and for packed q6_K, whose scale covers 16 elements (the
cache is keyed by e >> CS). */}}
{{- $q4k := and (eq (mul (div .TK 4) 4) .TK) (or (eq .Weight.String "q4_K") (eq .Weight.String "q4_0") (eq .Weight.String "q8_0") (and .Packed (eq .Weight.String "q6_K")))}}
{{- $cs := 5}}{{if eq .Weight.String "q6_K"}}{{$cs = 4}}{{end}}
{{- /* Slots carry a cache index (ldw's si) with a scale cache, and always
in a mixed-format QKV matmul (each matrix's ldw4 decides for itself). */}}
{{- $si := or $q4k .MixedQKV}}


const TM: u32 = {{.TM}}u;
const TN: u32 = {{.TN}}u;
const TK: u32 = {{.TK}}u;
const WG: u32 = 256u;
const RM: u32 = TM / 16u;
const RN: u32 = TN / 16u;

// Tiles are [kk][a][ty] (x) and [kk][c][tx] (W), a vec4 of 4 rows each:
// row m = 64a + 4ty + i sits in xs[kk][a][ty][i]. Each thread-dependent
// index is a dimension of its own, so the bounds clamp WebGPU puts on every
// dynamic index is min(ty, 15) or min(tx, 15), the same for all of a
// step's reads, and every read's address is one register plus a constant
// (a flat kk·TM/4 + 16a + ty clamped the sum, once per read).
// Key.DB: two tiles each, [buffer] outermost.
{{- if .DB}}
var<workgroup> xs: array<array<array<array<vec4<f32>, 16>, {{div .RM 4}}>, {{.TK}}>, 2>;
var<workgroup> ws: array<array<array<array<vec4<f32>, 16>, {{div .RN 4}}>, {{.TK}}>, 2>;
{{- else}}
var<workgroup> xs: array<array<array<vec4<f32>, 16>, {{div .RM 4}}>, {{.TK}}>;
var<workgroup> ws: array<array<array<vec4<f32>, 16>, {{div .RN 4}}>, {{.TK}}>;
{{- end}}
{{- if eq (mul (div .TK 4) 4) .TK}}

// Staging 4 k at a time: slot g of a step holds row g / (TK/4) at k
// 4·(g % (TK/4)), so neighbouring threads read along k (coalesced). Giving
// neighbouring threads neighbouring rows instead (bank-conflict-free stores,
// strided reads) was slower on the H200 (q4_0 packed 512×2048×8192 0.76 →
// 0.79 ms without the prefetch).
const XL: u32 = {{div (add (div (mul .TM .TK) 4) 255) 256}}u; // slots per thread
const WL: u32 = {{div (add (div (mul .TN .TK) 4) 255) 256}}u;

fn slot(g: u32) -> vec2<u32> {
    return vec2<u32>(g / (TK / 4u), (g % (TK / 4u)) * 4u);
}

// x[m0 + row][k0 + kk..+3] of slot g, zero outside M×[.., kEnd).
fn ldx(g: u32, m0: u32, k0: u32, M: u32, K: u32, kEnd: u32) -> vec4<f32> {
    let s = slot(g);
    let m = m0 + s.x;
    let k = k0 + s.y;
    var v = vec4<f32>(0.0);
{{- if .XVec}}
    // K, k and kEnd are multiples of 4: the slot's 4 k lie in the row and
    // before kEnd together, on one aligned vector.
    if (g < TM * TK / 4u && m < M && k < kEnd) {
        v = x[(m * K + k) / 4u];
    }
{{- else}}
    if (g < TM * TK / 4u && m < M) {
        let xb = m * K + k;
        for (var j = 0u; j < 4u; j++) {
            if (k + j < kEnd) {
                v[j] = x[xb + j];
            }
        }
    }
{{- end}}
    return v;
}

{{- if $si}}
// Slot i's cached (d·scale, dmin·min) and the sub-block they belong to.
var<private> wsm: array<vec2<f32>, WL>;
var<private> wsk: array<u32, WL>;
{{- end}}
{{- if .MixedQKV}}

// Mixed formats: slot g's 4 k through its matrix's own reads. Block
// formats only, so K and every split's kEnd are multiples of 4 and a
// slot's 4 k lie in the row or past kEnd together (no element-wise tail).
fn ldw(g: u32, n0: u32, k0: u32, N: u32, K: u32, kEnd: u32, si: u32) -> vec4<f32> {
    let s = slot(g);
    let n = n0 + s.x;
    let k = k0 + s.y;
    var v = vec4<f32>(0.0);
    if (g < TN * TK / 4u && n < N && k + 4u <= kEnd) {
        let r = qkv_row(n);
        switch r.x {
            case 0u: {
                v = ldw4(row_base(r.y, K), k, si);
            }
            case 1u: {
                v = ldw4_k(row_base_k(r.y, K), k, si);
            }
            default: {
                v = ldw4_v(row_base_v(r.y, K), k, si);
            }
        }
    }
    return v;
}
{{- else if .WLoad}}

// WLoad: slot g's 4 k as the raw words of one load (zero past N or kEnd;
// K and kEnd are multiples of 4 with XVec, so there is no element-wise
// tail). stw converts them after the step's FMAs, so nothing before those
// waits on the load.
fn ldw(g: u32, n0: u32, k0: u32, N: u32, K: u32, kEnd: u32) -> {{$wt}} {
    let s = slot(g);
{{- if .SwiGLU}}
    let n = n0 + s.x % (TN / 2u);
    wsel = s.x / (TN / 2u);
{{- else}}
    let n = n0 + s.x;
{{- end}}
    let k = k0 + s.y;
    var v = {{$wt}}();
    if (g < TN * TK / 4u && n < N && k < kEnd) {
{{- if .QKV}}
        let r = qkv_row(n);
        wsel = r.x;
        v = wload((row_base(r.y, K) + k) >> 2u);
{{- else}}
        v = wload((row_base(n, K) + k) >> 2u);
{{- end}}
    }
    return v;
}
{{- else}}
{{- if $q4k}}

fn ldw(g: u32, n0: u32, k0: u32, N: u32, K: u32, kEnd: u32, si: u32) -> vec4<f32> {
{{- else}}
fn ldw(g: u32, n0: u32, k0: u32, N: u32, K: u32, kEnd: u32) -> vec4<f32> {
{{- end}}
    let s = slot(g);
{{- if .SwiGLU}}
    let n = n0 + s.x % (TN / 2u);
    wsel = s.x / (TN / 2u);
{{- else}}
    let n = n0 + s.x;
{{- end}}
    let k = k0 + s.y;
    var v = vec4<f32>(0.0);
    if (g < TN * TK / 4u && n < N) {
{{- if .QKV}}
        let r = qkv_row(n);
        wsel = r.x;
        let rb = row_base(r.y, K);
{{- else}}
        let rb = row_base(n, K);
{{- end}}
        if (k + 4u <= kEnd) {
{{- if $q4k}}
            // As dq4, with the block's scale pair from the cache.
            if ((k >> {{$cs}}u) != wsk[si]) {
                wsk[si] = k >> {{$cs}}u;
                wsm[si] = dsc(rb, k);
            }
            v = dqs(rb, k, wsm[si]);
{{- else}}
            v = dq4(rb, k);
{{- end}}
        } else {
            for (var j = 0u; j < 4u; j++) {
                if (k + j < kEnd) {
                    v[j] = dq(rb, k + j);
                }
            }
        }
    }
    return v;
}
{{- end}}

// stx and stw store slot g's 4 k into the tile (Key.DB: into buffer o).
fn stx(g: u32, v: vec4<f32>, o: u32) {
    if (g < TM * TK / 4u) {
        let s = slot(g);
        for (var j = 0u; j < 4u; j++) {
            xs{{if .DB}}[o]{{end}}[s.y + j][s.x / 64u][(s.x / 4u) % 16u][s.x % 4u] = v[j];
        }
    }
}

fn stw(g: u32, {{if .WLoad}}q: {{$wt}}{{else}}v: vec4<f32>{{end}}, o: u32) {
    if (g < TN * TK / 4u) {
        let s = slot(g);
{{- if .WLoad}}
        let v = wcv(q);
{{- end}}
        for (var j = 0u; j < 4u; j++) {
            ws{{if .DB}}[o]{{end}}[s.y + j][s.x / 64u][(s.x / 4u) % 16u][s.x % 4u] = v[j];
        }
    }
}
{{- end}}

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let M = p.M;
    let N = p.N;
    let K = p.K;
    let tx = lid & 15u;
    let ty = (lid >> 4u) & 15u; // lid < 256: masked so tile offsets are provably small
    let m0 = wid.y * TM;
{{- if .SwiGLU}}
    let n0 = wid.x * (TN / 2u);
{{- else}}
    let n0 = wid.x * TN;
{{- end}}
{{- if .SplitK}}
    // Slices are whole TK steps, so only the last one ends short.
    let kPer = (K + {{.SplitK}}u * TK - 1u) / ({{.SplitK}}u * TK) * TK;
    let kBegin = wid.z * kPer;
    let kEnd = min(K, kBegin + kPer);
    let yBase = wid.z * p.Stride;
{{- else}}
    let kBegin = 0u;
    let kEnd = K;
    let yBase = 0u;
{{- end}}
    var acc: array<vec4<f32>, {{mul .RM (div .RN 4)}}>; // [a*4 + i][c] = rows, column vec4s
    for (var i = 0u; i < RM * RN / 4u; i++) {
        acc[i] = vec4<f32>(0.0);
    }
{{- if eq (mul (div .TK 4) 4) .TK}}
    var xr: array<vec4<f32>, XL>;
    var wr: array<{{if .WLoad}}{{$wt}}{{else}}vec4<f32>{{end}}, WL>;
{{- if $si}}
    for (var i = 0u; i < WL; i++) {
        wsk[i] = 0xffffffffu;
    }
{{- end}}
    for (var i = 0u; i < XL; i++) {
        xr[i] = ldx(lid + i * WG, m0, kBegin, M, K, kEnd);
    }
    for (var i = 0u; i < WL; i++) {
        wr[i] = ldw(lid + i * WG, n0, kBegin, N, K, kEnd{{if $si}}, i{{end}});
    }
{{- end}}
{{- if .DB}}
    // Key.DB: step s computes from buffer s % 2 while the next step's
    // registers go to the other, so one barrier per step orders both: a
    // buffer is rewritten only after every thread's step that read it has
    // passed the barrier behind it.
    for (var i = 0u; i < XL; i++) {
        stx(lid + i * WG, xr[i], 0u);
    }
    for (var i = 0u; i < WL; i++) {
        stw(lid + i * WG, wr[i], 0u);
    }
    workgroupBarrier();
    var cur = 0u;
    for (var k0 = kBegin; k0 < kEnd; k0 += TK) {
        let more = k0 + TK < kEnd;
        if (more) {
            for (var i = 0u; i < XL; i++) {
                xr[i] = ldx(lid + i * WG, m0, k0 + TK, M, K, kEnd);
            }
            for (var i = 0u; i < WL; i++) {
                wr[i] = ldw(lid + i * WG, n0, k0 + TK, N, K, kEnd{{if $si}}, i{{end}});
            }
        }
{{- $rn4 := div .RN 4}}
{{- range $kk := seq .TK}}
        {
{{- range $c := seq $rn4}}
            let w{{$c}} = ws[cur][{{$kk}}u][{{$c}}u][tx];
{{- end}}
{{- range $a := seq (div $.RM 4)}}
            let x{{$a}} = xs[cur][{{$kk}}u][{{$a}}u][ty];
{{- range $c := seq $rn4}}
            acc[{{add (mul (mul $a 4) $rn4) $c}}] += x{{$a}}.x * w{{$c}};
            acc[{{add (mul (add (mul $a 4) 1) $rn4) $c}}] += x{{$a}}.y * w{{$c}};
            acc[{{add (mul (add (mul $a 4) 2) $rn4) $c}}] += x{{$a}}.z * w{{$c}};
            acc[{{add (mul (add (mul $a 4) 3) $rn4) $c}}] += x{{$a}}.w * w{{$c}};
{{- end}}
{{- end}}
        }
{{- end}}
        if (more) {
            let o = 1u - cur;
            for (var i = 0u; i < XL; i++) {
                stx(lid + i * WG, xr[i], o);
            }
            for (var i = 0u; i < WL; i++) {
                stw(lid + i * WG, wr[i], o);
            }
        }
        workgroupBarrier();
        cur = 1u - cur;
    }
{{- else}}
    for (var k0 = kBegin; k0 < kEnd; k0 += TK) {
{{- if eq (mul (div .TK 4) 4) .TK}}
        for (var i = 0u; i < XL; i++) {
            stx(lid + i * WG, xr[i], 0u);
        }
        for (var i = 0u; i < WL; i++) {
            stw(lid + i * WG, wr[i], 0u);
        }
        workgroupBarrier();
        // The next step's global reads are in flight during this step's FMAs.
        if (k0 + TK < kEnd) {
            for (var i = 0u; i < XL; i++) {
                xr[i] = ldx(lid + i * WG, m0, k0 + TK, M, K, kEnd);
            }
            for (var i = 0u; i < WL; i++) {
                wr[i] = ldw(lid + i * WG, n0, k0 + TK, N, K, kEnd{{if $si}}, i{{end}});
            }
        }
{{- else}}
        // Stage x: element (m, kk) goes to xs[kk][m/64][m/4 % 16][m%4]; consecutive
        // threads take consecutive k of a row (coalesced global reads).
        for (var e = lid; e < TM * TK; e += WG) {
            let mm = e / TK;
            let kk = e % TK;
            let m = m0 + mm;
            let k = k0 + kk;
            var v = 0.0;
            if (m < M && k < kEnd) {
                v = x[m * K + k];
            }
            xs[kk][mm / 64u][(mm / 4u) % 16u][mm % 4u] = v;
        }
        for (var e = lid; e < TN * TK; e += WG) {
            let nn = e / TK;
            let kk = e % TK;
            let n = n0 + nn;
            let k = k0 + kk;
            var v = 0.0;
            if (n < N && k < kEnd) {
                v = dq(row_base(n, K), k);
            }
            ws[kk][nn / 64u][(nn / 4u) % 16u][nn % 4u] = v;
        }
        workgroupBarrier();
{{- end}}
        for (var kk = 0u; kk < TK; kk++) {
            var wv: array<vec4<f32>, {{div .RN 4}}>;
            for (var c = 0u; c < RN / 4u; c++) {
                wv[c] = ws[kk][c][tx];
            }
            for (var a = 0u; a < RM / 4u; a++) {
                let xv = xs[kk][a][ty];
                for (var c = 0u; c < RN / 4u; c++) {
                    let base = (a * 4u) * (RN / 4u) + c;
                    acc[base] += xv.x * wv[c];
                    acc[base + RN / 4u] += xv.y * wv[c];
                    acc[base + 2u * (RN / 4u)] += xv.z * wv[c];
                    acc[base + 3u * (RN / 4u)] += xv.w * wv[c];
                }
            }
        }
        workgroupBarrier();
    }
{{- end}}
{{- if .SwiGLU}}
    for (var a = 0u; a < RM / 4u; a++) {
        for (var i = 0u; i < 4u; i++) {
            let m = m0 + a * 64u + ty * 4u + i;
            if (m >= M) {
                continue;
            }
            for (var c = 0u; c < RN / 8u; c++) {
                let g4 = acc[(a * 4u + i) * (RN / 4u) + c];
                let u4 = acc[(a * 4u + i) * (RN / 4u) + c + RN / 8u];
                for (var j = 0u; j < 4u; j++) {
                    let n = n0 + c * 64u + tx * 4u + j;
                    if (n < N) {
                        y[m * N + n] = {{.ActFn}}(g4[j]) * u4[j];
                    }
                }
            }
        }
    }
{{- else}}
    for (var a = 0u; a < RM / 4u; a++) {
        for (var i = 0u; i < 4u; i++) {
            let m = m0 + a * 64u + ty * 4u + i;
            if (m >= M) {
                continue;
            }
            for (var c = 0u; c < RN / 4u; c++) {
                let v4 = acc[(a * 4u + i) * (RN / 4u) + c];
                for (var j = 0u; j < 4u; j++) {
                    let n = n0 + c * 64u + tx * 4u + j;
                    if (n < N) {
                        var v = v4[j];
{{- if .QKV}}
{{- else if and .Bias .SplitK}}
                        if (wid.z == 0u) {
                            v += bias[n];
                        }
{{- else if .Bias}}
                        v += bias[n];
{{- end}}
{{- if and .Residual .SplitK}}
                        if (wid.z == 0u) {
                            v += res[m * N + n];
                        }
{{- else if .Residual}}
                        v += res[m * N + n];
{{- end}}
{{- if and .QKV .SplitK}}
                        if (wid.z == 0u) {
                            v += qkv_bias(n);
                        }
                        y[yBase + m * N + n] = v;
{{- else if .QKV}}
                        v += qkv_bias(n);
                        let r = qkv_row(n);
                        if (r.x == 0u) {
                            y[m * p.Nq + r.y] = v;
                        } else if (r.x == 1u) {
                            yk[m * p.Nk + r.y] = v;
                        } else {
                            yv[m * (N - p.Nq - p.Nk) + r.y] = v;
                        }
{{- else}}
                        y[yBase + m * N + n] = v;
{{- end}}
                    }
                }
            }
        }
    }
{{- end}}
}
