// Causal attention for a batch of M queries (prefill), tiled for register
// and workgroup-memory reuse (Key.Coop on OpAttnPrefill). Workgroup (g, h):
// BQ = WG/4 consecutive queries of head h. Per tile of BK keys:
//
//  1. the K tile is staged (f32) in workgroup memory;
//  2. scores: thread (qi, part), 4 a query, keeps query qi's q row in
//     registers and scores keys part, part+4, ... of the tile (BK/4
//     independent dot chains, K read as broadcasts), then publishes the
//     largest of its scores;
//  3. the same thread takes its query's new running max from the 4
//     published ones, exponentiates its own BK/4 scores (each score once)
//     into the probability tile pt[key][query] and the V tile replaces K;
//  4. p·V: thread (qa, db) owns a 4-query × 4·DV4-dim block of the output,
//     so each key costs it one vec4 of probabilities and DV4 vec4s of V
//     for 16·DV4 FMAs.
//
// The online softmax is llama.cpp's: running max m, sum l, accumulator
// rescaled by exp(m_old - m_new) (published per query in cr). The 4
// score threads of a query see the same maxima, so each keeps the sum of
// its own keys' probabilities and the four are added at the end. Tile 0
// holds position 0, which every query sees, so m is a real score after it
// and masked scores (-3e38) exponentiate to 0.
//
// Against attn_prefill.wgsl (2 threads a query, each holding q and a
// 64-float accumulator): Llama-1B pp512 attention 161 → 101 µs a layer,
// head size 128 240 → 124 (H200, scripts/bench/device-prefill-attn.sh).
{{- if or .Window .NonCausal .Ring}}
// Key.Window: a query at pos sees keys pos-WIN+1.. only, and the tiles
// start at the workgroup's first query's window. Key.NonCausal: every
// query sees up to the batch's last position. Key.Ring: position t is
// cache row t mod Ctx.
{{- end}}
{{- if .Window}}
// With a window the first tile need not hold a key every query sees, so
// a query whose keys so far are all masked (running max still -3e38)
// gets zero probabilities, not exp(0).
{{- end}}
{{- if gt .HeadDim 128}}
// Head sizes over 128 split the score's dims instead (a q row would not
// fit a thread's registers): score thread (qi, part) keeps the part-th
// quarter of query qi's q row, dots it with that quarter of every key of
// the tile and publishes the partial scores in sc; after a barrier it sums
// the four quarters of its keys part, part+4, ... and goes on as above.
// The K/V tile is [u][part][dq][b][e] then: the quarter dq holds row
// vec4s (4dq + b)·DV4 + e, which p·V thread db = 4dq + b reads.
{{- end}}
struct Params {
    M: u32,
    Heads: u32,
    KVHeads: u32,
    Pos0: u32,
    Ctx: u32,
    scale: f32,
    pad0: u32,
    pad1: u32,
}

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read> q: array<vec4<f32>>;
{{- template "kvbind_quad" .}}
@group(0) @binding(4) var<storage, read_write> out: array<vec4<f32>>;

const D: u32 = {{.HeadDim}}u;
const HV: u32 = D / 4u; // vec4s per row
const HP: u32 = D / 2u; // pairs per row (the cache's unit)
const WG: u32 = {{.WG}}u;
const BQ: u32 = WG / 4u; // queries per workgroup
const QA: u32 = BQ / 4u; // query quads per workgroup
const BK: u32 = {{.BC}}u; // keys per tile
const DV4: u32 = D / 64u; // output vec4s per query a p·V thread owns
{{- if .Window}}
const WIN: u32 = {{.Window}}u; // sliding window (Key.Window): keys pos-WIN+1..pos
{{- end}}
{{- if .Softcap}}
const CAP: f32 = {{f32 .Softcap}}; // score soft-cap (Key.Softcap)
{{- end}}

// The K/V tile is [u][part][db][e]: key 4u + part, row vec4 db·DV4 + e;
// the probability tile [key][query quad]. Each thread-dependent index (a
// score thread's part, a p·V thread's db and qa) is a dimension of its
// own, so the bounds clamp WebGPU puts on every dynamic index is on that
// index alone, one value for all of a tile's reads, and each read's
// address is a register plus a constant (a flat (4u + part)·HV + d was
// clamped as a sum, at every read).
{{- if gt .HeadDim 128}}
var<workgroup> kv: array<array<array<array<array<vec4<f32>, {{div .HeadDim 64}}>, 4>, 4>, 4>, {{div .BC 4}}>;
// Partial scores [key part][u][dims quarter][query]: key 4u + key part.
var<workgroup> sc: array<array<array<array<f32, {{div .WG 4}}>, 4>, {{div .BC 4}}>, 4>;
{{- else}}
var<workgroup> kv: array<array<array<array<vec4<f32>, {{div .HeadDim 64}}>, 16>, 4>, {{div .BC 4}}>;
{{- end}}
var<workgroup> pt: array<array<vec4<f32>, {{div .WG 16}}>, {{.BC}}>;
var<workgroup> pm: array<f32, WG>; // each score thread's largest score, then its sum
var<workgroup> cr: array<vec4<f32>, {{div .WG 16}}>; // each query's rescale

// stage copies the tile's K (k) or V rows at positions tb.. into kv, zeros
// past last.
fn stage(k: bool, kvbase: u32, tb: u32, last: u32, lid: u32) {
    for (var j = lid; j < BK * HV; j += WG) {
        let t = tb + j / HV;
        var v = vec4<f32>(0.0);
        if (t <= last) {
            if (k) {
{{- if .Ring}}
                v = kquad(kvbase + (t % p.Ctx) * HP, j % HV);
            } else {
                v = vquad(kvbase + (t % p.Ctx) * HP, j % HV);
{{- else}}
                v = kquad(kvbase + t * HP, j % HV);
            } else {
                v = vquad(kvbase + t * HP, j % HV);
{{- end}}
            }
        }
        let key = j / HV;
        let d = j % HV;
{{- if gt .HeadDim 128}}
        kv[key / 4u][key % 4u][d / (4u * DV4)][d / DV4 % 4u][d % DV4] = v;
{{- else}}
        kv[key / 4u][key % 4u][d / DV4][d % DV4] = v;
{{- end}}
    }
}

@compute @workgroup_size({{.WG}})
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let h = wid.y;
    let hk = h / (p.Heads / p.KVHeads);
    // Score threads: query qi, part.
    let qi = lid % BQ;
    let part = lid / BQ;
    let i = wid.x * BQ + qi;
    let pos = p.Pos0 + i;
{{- if .NonCausal}}
    let last = p.Pos0 + p.M - 1u; // every query sees the whole batch
{{- else}}
    let last = p.Pos0 + min(p.M, (wid.x + 1u) * BQ) - 1u; // last position any query here sees
{{- end}}
{{- if .Window}}
    let first = p.Pos0 + wid.x * BQ; // the first query's window starts the tiles
    let lo = select(0u, first + 1u - WIN, first + 1u > WIN);
{{- end}}
{{- if gt .HeadDim 128}}
    var qv: array<vec4<f32>, {{div .HeadDim 16}}>; // quarter part of the q row
    for (var d = 0u; d < 4u * DV4; d++) {
        qv[d] = vec4<f32>(0.0);
        if (i < p.M) {
            qv[d] = q[(i * p.Heads + h) * HV + part * 4u * DV4 + d] * p.scale;
        }
    }
{{- else}}
    var qv: array<vec4<f32>, {{div .HeadDim 4}}>;
    for (var d = 0u; d < HV; d++) {
        qv[d] = vec4<f32>(0.0);
        if (i < p.M) {
            qv[d] = q[(i * p.Heads + h) * HV + d] * p.scale;
        }
    }
{{- end}}
    // p·V threads: queries 4·qa..4·qa+3, dims of vec4s db·DV4...
    let qa = lid % QA;
    let db = lid / QA;
    var acc: array<vec4<f32>, {{mul 4 (div .HeadDim 64)}}>; // [query][vec4]
    for (var j = 0u; j < 4u * DV4; j++) {
        acc[j] = vec4<f32>(0.0);
    }
    var m = -3.0e38;
    var l = 0.0; // this score thread's keys' share of the sum
    let kvbase = hk * p.Ctx * HP;
    for (var tb = {{if .Window}}lo{{else}}0u{{end}}; tb <= last; tb += BK) {
        stage(true, kvbase, tb, last, lid);
        workgroupBarrier();
        var s: array<f32, {{div .BC 4}}>;
        var smax = -3.0e38;
{{- if gt .HeadDim 128}}
        {
            var ps: array<f32, {{.BC}}>; // this quarter's share of each key's score
{{- range $c := seq .BC}}
            ps[{{$c}}] = 0.0;
{{- end}}
{{- range $d := seq (div .HeadDim 16)}}
{{- range $c := seq $.BC}}
            ps[{{$c}}] += dot(qv[{{$d}}], kv[{{div $c 4}}u][{{mod $c 4}}u][part][{{div $d (div $.HeadDim 64)}}u][{{mod $d (div $.HeadDim 64)}}u]);
{{- end}}
{{- end}}
{{- range $c := seq .BC}}
            sc[{{mod $c 4}}u][{{div $c 4}}u][part][qi] = ps[{{$c}}];
{{- end}}
        }
        workgroupBarrier();
{{- range $u := seq (div .BC 4)}}
        s[{{$u}}] = (sc[part][{{$u}}u][0u][qi] + sc[part][{{$u}}u][1u][qi]) + (sc[part][{{$u}}u][2u][qi] + sc[part][{{$u}}u][3u][qi]);
{{- end}}
{{- else}}
{{- range $u := seq (div .BC 4)}}
        s[{{$u}}] = 0.0;
{{- end}}
{{- range $d := seq (div .HeadDim 4)}}
{{- range $u := seq (div $.BC 4)}}
        s[{{$u}}] += dot(qv[{{$d}}], kv[{{$u}}u][part][{{div $d (div $.HeadDim 64)}}u][{{mod $d (div $.HeadDim 64)}}u]);
{{- end}}
{{- end}}
{{- end}}
{{- range $u := seq (div .BC 4)}}
{{- if $.Softcap}}
        s[{{$u}}] = CAP * tanh(clamp(s[{{$u}}] / CAP, -15.0, 15.0));
{{- end}}
        s[{{$u}}] = select(-3.0e38, s[{{$u}}], tb + {{mul $u 4}}u + part <= {{if $.NonCausal}}last{{else}}pos{{end}}{{if $.Window}} && tb + {{mul $u 4}}u + part + WIN > pos{{end}});
        smax = max(smax, s[{{$u}}]);
{{- end}}
        pm[lid] = smax;
        workgroupBarrier();
        let mt = max(max(m, max(pm[qi], pm[BQ + qi])), max(pm[2u * BQ + qi], pm[3u * BQ + qi]));
        let corr = exp(m - mt);
        l *= corr;
        m = mt;
        if (part == 0u) {
            cr[qi / 4u][qi % 4u] = corr;
        }
{{- if .Window}}
        let live = mt > -3.0e38; // some key of this query seen so far
{{- end}}
{{- range $u := seq (div .BC 4)}}
        {
{{- if $.Window}}
            let e = select(0.0, exp(s[{{$u}}] - mt), live);
{{- else}}
            let e = exp(s[{{$u}}] - mt);
{{- end}}
            l += e;
            pt[{{mul $u 4}}u + part][qi / 4u][qi % 4u] = e;
        }
{{- end}}
        stage(false, kvbase, tb, last, lid);
        workgroupBarrier();
        let c4 = cr[qa];
        for (var e = 0u; e < DV4; e++) {
            acc[e] *= c4.x;
            acc[DV4 + e] *= c4.y;
            acc[2u * DV4 + e] *= c4.z;
            acc[3u * DV4 + e] *= c4.w;
        }
        for (var c = 0u; c < BK; c++) {
            let pc = pt[c][qa];
            for (var e = 0u; e < DV4; e++) {
{{- if gt .HeadDim 128}}
                let v = kv[c / 4u][c % 4u][db / 4u][db % 4u][e];
{{- else}}
                let v = kv[c / 4u][c % 4u][db][e];
{{- end}}
                acc[e] = fma(vec4<f32>(pc.x), v, acc[e]);
                acc[DV4 + e] = fma(vec4<f32>(pc.y), v, acc[DV4 + e]);
                acc[2u * DV4 + e] = fma(vec4<f32>(pc.z), v, acc[2u * DV4 + e]);
                acc[3u * DV4 + e] = fma(vec4<f32>(pc.w), v, acc[3u * DV4 + e]);
            }
        }
        workgroupBarrier();
    }
    pm[lid] = l;
    workgroupBarrier();
    for (var r = 0u; r < 4u; r++) {
        let qr = qa * 4u + r;
        let ir = wid.x * BQ + qr;
        if (ir < p.M) {
            let lsum = (pm[qr] + pm[BQ + qr]) + (pm[2u * BQ + qr] + pm[3u * BQ + qr]);
            for (var e = 0u; e < DV4; e++) {
                out[(ir * p.Heads + h) * HV + db * DV4 + e] = acc[r * DV4 + e] / lsum;
            }
        }
    }
}
