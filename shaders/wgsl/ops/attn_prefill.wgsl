// Causal attention for a batch of M queries (prefill). Workgroup (g, h):
// QB = WG/P consecutive queries of head h, P threads per query (P =
// Key.SplitK, 1 when unset), each holding the query's q row and an output
// accumulator privately. K and V are staged BC positions at a time in
// workgroup memory and shared by all the workgroup's queries; thread part
// j of a query takes positions j, j+P, ... of each tile and runs an online
// softmax over those <= its query's own (causal mask). With P > 1 the P
// partial (max, sum, accumulator) states of a query are merged at the end
// through workgroup memory: P times the threads (and a P-th of the work
// per thread) for the same query block. With P > 1 rows are read as vec4
// when HeadDim % 4 == 0 (one workgroup-memory read per 4 FMAs; H100
// Llama-1B pp512 step at depth 2048, 4 threads: attn_prefill 13.4 → 10.9
// ms), else as vec2.
{{- if or .Window .NonCausal .Ring}}
// Key.Window: a query at pos sees keys pos-WIN+1.. only, and the tiles
// start at the workgroup's first query's window. Key.NonCausal: every
// query sees up to the batch's last position. Key.Ring: position t is
// cache row t mod Ctx.
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
{{- $parts := 1}}{{if gt .SplitK 1}}{{$parts = .SplitK}}{{end}}
{{- /* vec4 rows with several threads per query only: with one (software
adapters) vec2 was faster on the H100 too (attn_prefill 3.85 vs 4.15 ms
per Llama-1B pp512 step). */}}
{{- $vw := 2}}{{if and (gt $parts 1) (eq (mul (div .HeadDim 4) 4) .HeadDim)}}{{$vw = 4}}{{end}}

alias VT = vec{{$vw}}<f32>;

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read> q: array<VT>;
{{- template "kvbind" .}}
@group(0) @binding(4) var<storage, read_write> out: array<VT>;

const D: u32 = {{.HeadDim}}u;
const HP: u32 = D / 2u; // pairs per row (the cache's unit)
const HV: u32 = D / {{$vw}}u; // VT vectors per row
const WG: u32 = {{.WG}}u;
const BC: u32 = {{.BC}}u;
const P: u32 = {{$parts}}u; // threads per query
const QB: u32 = WG / P; // queries per workgroup
const CP: u32 = BC / P; // positions per thread and tile
{{- if .Window}}
const WIN: u32 = {{.Window}}u; // sliding window (Key.Window): keys pos-WIN+1..pos
{{- end}}
{{- if .Softcap}}
const CAP: f32 = {{f32 .Softcap}}; // score soft-cap (Key.Softcap)
{{- end}}

var<workgroup> kt: array<VT, {{mul .BC (div .HeadDim $vw)}}>;
var<workgroup> vt: array<VT, {{mul .BC (div .HeadDim $vw)}}>;
{{- if gt $parts 1}}
// The merge: (max, sum) of every thread, then R vectors of the
// accumulator of every thread per round (R·VT = P pairs).
const R: u32 = P * 2u / {{$vw}}u;
var<workgroup> red: array<VT, {{div (mul (mul .WG $parts) 2) $vw}}>;
{{- end}}

// Vector v of a cached row starting at pair b.
fn kvec(b: u32, v: u32) -> VT {
{{- if eq $vw 4}}
    return VT(kpair(b + 2u * v), kpair(b + 2u * v + 1u));
{{- else}}
    return kpair(b + v);
{{- end}}
}

fn vvec(b: u32, v: u32) -> VT {
{{- if eq $vw 4}}
    return VT(vpair(b + 2u * v), vpair(b + 2u * v + 1u));
{{- else}}
    return vpair(b + v);
{{- end}}
}

@compute @workgroup_size({{.WG}})
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let h = wid.y;
    let hk = h / (p.Heads / p.KVHeads);
    let qi = lid % QB;
    let part = lid / QB;
    let i = wid.x * QB + qi;
    let valid = i < p.M;
    let pos = p.Pos0 + i;
{{- if .NonCausal}}
    let last = p.Pos0 + p.M - 1u; // every query sees the whole batch
{{- else}}
    let last = p.Pos0 + min(p.M, (wid.x + 1u) * QB) - 1u; // last position any query here sees
{{- end}}
{{- if .Window}}
    let first = p.Pos0 + wid.x * QB; // the first query's window starts the tiles
    let lo = select(0u, first + 1u - WIN, first + 1u > WIN);
{{- end}}
    let qb = (i * p.Heads + h) * HV;
    var qv: array<VT, {{div .HeadDim $vw}}>;
    var acc: array<VT, {{div .HeadDim $vw}}>;
    for (var d = 0u; d < HV; d++) {
        acc[d] = VT(0.0);
        if (valid) {
            qv[d] = q[qb + d] * p.scale;
        }
    }
    var m = -3.0e38;
    var l = 0.0;
    let kvbase = hk * p.Ctx * HP;
    for (var tb = {{if .Window}}lo{{else}}0u{{end}}; tb <= last; tb += BC) {
        for (var j = lid; j < BC * HV; j += WG) {
            let t = tb + j / HV;
            if (t <= last) {
{{- if .Ring}}
                kt[j] = kvec(kvbase + (t % p.Ctx) * HP, j % HV);
                vt[j] = vvec(kvbase + (t % p.Ctx) * HP, j % HV);
{{- else}}
                kt[j] = kvec(kvbase + t * HP, j % HV);
                vt[j] = vvec(kvbase + t * HP, j % HV);
{{- end}}
            }
        }
        workgroupBarrier();
        if (valid && tb + part <= {{if .NonCausal}}last{{else}}pos{{end}}) {
            var s: array<f32, {{div .BC $parts}}>;
            var mt = m;
            for (var u = 0u; u < CP; u++) {
                let c = u * P + part;
                if (tb + c <= {{if .NonCausal}}last{{else}}pos{{end}}{{if .Window}} && tb + c + WIN > pos{{end}}) {
                    var d2 = 0.0;
                    for (var d = 0u; d < HV; d++) {
                        d2 += dot(qv[d], kt[c * HV + d]);
                    }
{{- if .Softcap}}
                    d2 = CAP * tanh(clamp(d2 / CAP, -15.0, 15.0));
{{- end}}
                    s[u] = d2;
                    mt = max(mt, d2);
                }
            }
            let corr = exp(m - mt);
            l *= corr;
            for (var d = 0u; d < HV; d++) {
                acc[d] *= corr;
            }
            for (var u = 0u; u < CP; u++) {
                let c = u * P + part;
                if (tb + c <= {{if .NonCausal}}last{{else}}pos{{end}}{{if .Window}} && tb + c + WIN > pos{{end}}) {
                    let e = exp(s[u] - mt);
                    l += e;
                    for (var d = 0u; d < HV; d++) {
                        acc[d] += e * vt[c * HV + d];
                    }
                }
            }
            m = mt;
        }
        workgroupBarrier();
    }
{{- if gt $parts 1}}
    // Merge the P parts of each query: red[j*QB + qi] is part j's (m, l),
    // then per round each part's next R vectors (scaled to the common
    // max), of which part j < R sums vector j over the parts and writes
    // it. The round loop shifts acc down by R instead of indexing it by
    // round: an accumulator indexed by a loop variable that is not
    // unrolled (this loop has barriers) would live in local memory for the
    // whole kernel.
    red[lid] = VT(0.0);
    red[lid].x = m;
    red[lid].y = l;
    workgroupBarrier();
    var mx = -3.0e38;
    for (var j = 0u; j < P; j++) {
        mx = max(mx, red[j * QB + qi].x);
    }
    var lsum = 0.0;
    for (var j = 0u; j < P; j++) {
        let r = red[j * QB + qi];
        lsum += r.y * exp(r.x - mx);
    }
    let f = exp(m - mx);
    workgroupBarrier();
    for (var r = 0u; r < (HV + R - 1u) / R; r++) {
        for (var j = 0u; j < R; j++) {
            red[(j * P + part) * QB + qi] = f * acc[j];
        }
        for (var d = 0u; d < HV - R; d++) {
            acc[d] = acc[d + R];
        }
        workgroupBarrier();
        if (valid && part < R && r * R + part < HV) {
            var o = VT(0.0);
            for (var j = 0u; j < P; j++) {
                o += red[(part * P + j) * QB + qi];
            }
            out[qb + r * R + part] = o / lsum;
        }
        workgroupBarrier();
    }
{{- else}}
    if (valid) {
        for (var d = 0u; d < HV; d++) {
            out[qb + d] = acc[d] / l;
        }
    }
{{- end}}
}
