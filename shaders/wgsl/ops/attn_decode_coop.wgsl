// Flash-decoding split pass (or, with NoSplit, the one-pass kernel) with
// the loads of each 64-key tile in flight together (Key.Coop): the same
// results and bindings as attn_decode.wgsl, for one query head per
// workgroup and a head size of 4·Q dims, Q a power of two <= WG.
//
// attn_decode.wgsl gives each thread one key for q·k (its K row in rounds
// of KU pairs) and one head dim for the V sum (the tile's keys in rounds of
// VU): a 64-key tile at head size 64 is 4 + 8 rounds of dependent load
// latency, which is most of a short decode step's attention (~11 µs a
// layer on an H100 at 128 positions). Here a thread loads its key's whole K
// row as vec4s at once, and for the V sum thread (g, j) takes dims
// 4j..4j+3 of keys g, g+KG, g+2·KG, ... (KG = WG/Q key groups), BATCH
// vec4 loads issued together; the KG partial sums of each dim meet in
// workgroup memory once, at the end. With Prefetch a tile's first K and V
// batches go out together before the scores (the first tile's before q is
// staged): a shorter chain of load latencies, paid for with registers
// held across the tile, so the runtime uses it for small grids only.
{{- template "attn_decode_io" .}}

const D: u32 = {{.HeadDim}}u;
const HP: u32 = D / 2u;
const Q: u32 = D / 4u;          // vec4s per row
const WG: u32 = {{.WG}}u;       // threads, and keys per tile
const KG: u32 = WG / Q;         // key groups of the V sum
const VPT: u32 = WG / KG;       // keys per thread per tile in the V sum
const BATCH: u32 = 16u;         // vec4 loads issued together
{{- if .Prefetch}}
const KB: u32 = {{if lt (div .HeadDim 4) 16}}{{div .HeadDim 4}}{{else}}16{{end}}u; // min(BATCH, Q)
{{- end}}
const NEG: f32 = -3.0e38;
{{- if .Window}}
const WIN: u32 = {{.Window}}u; // sliding window (Key.Window): keys [L-WIN, L) only
{{- end}}
{{- if .Softcap}}
const CAP: f32 = {{f32 .Softcap}}; // score soft-cap (Key.Softcap)
{{- end}}

var<workgroup> qs: array<vec4<f32>, Q>;
var<workgroup> sc: array<f32, WG>;
var<workgroup> red: array<f32, WG>;
var<workgroup> vsum: array<vec4<f32>, WG>;

{{- template "wg_maxsum" "f32"}}

{{- if .Prefetch}}

// Prefetch: load_batch0 loads the first KB quads of this thread's K row
// (key tb + lid) and of its V sum's first KB keys (g, g+KG, ...) of the
// tile at tb; zeros past t1.
fn load_batch0(kvbase: u32, tb: u32, t1: u32, j: u32, g: u32, kv: ptr<function, array<vec4<f32>, KB>>, vv: ptr<function, array<vec4<f32>, KB>>) {
    let lid = g * Q + j;
    let t = tb + lid;
    for (var r = 0u; r < KB; r++) {
        (*kv)[r] = vec4<f32>(0.0);
        if (t < t1) {
            (*kv)[r] = kquad(kvbase + {{if .Ring}}(t % p.Ctx){{else}}t{{end}} * HP, r);
        }
        (*vv)[r] = vec4<f32>(0.0);
        let u = tb + g + r * KG;
        if (u < t1) {
            (*vv)[r] = vquad(kvbase + {{if .Ring}}(u % p.Ctx){{else}}u{{end}} * HP, j);
        }
    }
}
{{- end}}

{{- define "coop_softmax"}}
        // Online softmax over the tile's scores: the running max m, sum l and
        // accumulator acc rescaled to the new max; sc holds the tile's weights.
        let mn = max(m, wg_max(lid, sv));
        var e = 0.0;
        if (t < t1) {
            e = exp(sv - mn);
        }
        sc[lid] = e;
        let corr = exp(m - mn);
        l = l * corr + wg_sum(lid, e); // wg_sum's barriers also publish sc
        m = mn;
        acc *= corr;
{{- end}}

@compute @workgroup_size({{.WG}})
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let s = wid.x;
    if (s >= p.Splits) {
        return; // a grid wider than this step's split count (the whole workgroup leaves)
    }
    let h = wid.y;
    let hk = h / (p.Heads / p.KVHeads);
{{- if .Window}}
    // The window's keys [lo, L) only, cut in Splits parts.
    let lo = select(0u, p.L - WIN, p.L > WIN);
    let chunk = (p.L - lo + p.Splits - 1u) / p.Splits;
    let t0 = min(p.L, lo + s * chunk);
{{- else}}
    let chunk = (p.L + p.Splits - 1u) / p.Splits;
    let t0 = min(p.L, s * chunk);
{{- end}}
    let t1 = min(p.L, t0 + chunk);
{{- if .Prefetch}}
    let kvbase = hk * p.Ctx * HP;
    let j = lid % Q;  // this thread's dims 4j..4j+3 in the V sum
    let g = lid / Q;  // and its key group
    // A tile's first batches of K and V loads go out together, before the
    // scores they do not depend on (and, for the first tile, before q is
    // staged), so the V loads' latency hides behind q·k and the softmax.
    var kv: array<vec4<f32>, KB>;
    var vv: array<vec4<f32>, KB>;
    load_batch0(kvbase, t0, t1, j, g, &kv, &vv);
    for (var i = lid; i < Q; i += WG) {
        qs[i] = vec4<f32>(q[h * HP + 2u * i], q[h * HP + 2u * i + 1u]) * p.scale;
    }
    workgroupBarrier();
    var m = NEG;
    var l = 0.0;
    var acc = vec4<f32>(0.0);
    for (var tb = t0; tb < t1; tb += WG) {
        let t = tb + lid;
        var sv = NEG;
        if (t < t1) {
            sv = 0.0;
            let kb = kvbase + {{if .Ring}}(t % p.Ctx){{else}}t{{end}} * HP;
            for (var r = 0u; r < KB; r++) {
                sv += dot(qs[r], kv[r]);
            }
            for (var i0 = KB; i0 < Q; i0 += KB) { // head sizes over 64: later batches
                var kn: array<vec4<f32>, KB>;
                for (var r = 0u; r < KB; r++) {
                    kn[r] = kquad(kb, i0 + r);
                }
                for (var r = 0u; r < KB; r++) {
                    sv += dot(qs[i0 + r], kn[r]);
                }
            }
{{- if .Softcap}}
            sv = CAP * tanh(clamp(sv / CAP, -15.0, 15.0));
{{- end}}
        }
{{- template "coop_softmax"}}
        for (var r = 0u; r < KB; r++) {
            acc += sc[g + r * KG] * vv[r]; // sc is 0 past the range, vv too
        }
        let nt = min(WG, t1 - tb);
        for (var r0 = KB; r0 < VPT; r0 += KB) {
            var vn: array<vec4<f32>, KB>;
            for (var r = 0u; r < KB; r++) {
                let u = g + (r0 + r) * KG;
                vn[r] = vec4<f32>(0.0);
                if (u < nt) {
                    vn[r] = vquad(kvbase + {{if .Ring}}((tb + u) % p.Ctx){{else}}(tb + u){{end}} * HP, j);
                }
            }
            for (var r = 0u; r < KB; r++) {
                acc += sc[g + (r0 + r) * KG] * vn[r];
            }
        }
        workgroupBarrier(); // sc is rewritten by the next tile
        load_batch0(kvbase, tb + WG, t1, j, g, &kv, &vv);
    }
{{- else}}
    for (var i = lid; i < Q; i += WG) {
        qs[i] = vec4<f32>(q[h * HP + 2u * i], q[h * HP + 2u * i + 1u]) * p.scale;
    }
    workgroupBarrier();
    let kvbase = hk * p.Ctx * HP;
    let j = lid % Q;  // this thread's dims 4j..4j+3 in the V sum
    let g = lid / Q;  // and its key group
    var m = NEG;
    var l = 0.0;
    var acc = vec4<f32>(0.0);
    for (var tb = t0; tb < t1; tb += WG) {
        let t = tb + lid;
        var sv = NEG;
        if (t < t1) {
            sv = 0.0;
            let kb = kvbase + {{if .Ring}}(t % p.Ctx){{else}}t{{end}} * HP;
            for (var i0 = 0u; i0 < Q; i0 += BATCH) {
                var kv: array<vec4<f32>, BATCH>;
                for (var r = 0u; r < min(BATCH, Q); r++) {
                    kv[r] = kquad(kb, i0 + r);
                }
                for (var r = 0u; r < min(BATCH, Q); r++) {
                    sv += dot(qs[i0 + r], kv[r]);
                }
            }
{{- if .Softcap}}
            sv = CAP * tanh(clamp(sv / CAP, -15.0, 15.0));
{{- end}}
        }
{{- template "coop_softmax"}}
        let nt = min(WG, t1 - tb);
        for (var r0 = 0u; r0 < VPT; r0 += BATCH) {
            var vv: array<vec4<f32>, BATCH>;
            for (var r = 0u; r < min(BATCH, VPT); r++) {
                let u = g + (r0 + r) * KG;
                vv[r] = vec4<f32>(0.0);
                if (u < nt) {
                    vv[r] = vquad(kvbase + {{if .Ring}}((tb + u) % p.Ctx){{else}}(tb + u){{end}} * HP, j);
                }
            }
            for (var r = 0u; r < min(BATCH, VPT); r++) {
                acc += sc[g + (r0 + r) * KG] * vv[r]; // sc is 0 past the range
            }
        }
        workgroupBarrier(); // sc is rewritten by the next tile
    }
{{- end}}
    vsum[lid] = acc;
    workgroupBarrier();
    if (lid < Q) {
        var a = vec4<f32>(0.0);
        for (var k = 0u; k < KG; k++) {
            a += vsum[k * Q + lid];
        }
{{- if .NoSplit}}
        // One split: normalize here and write out[h][d]; no merge pass.
        for (var c = 0u; c < 4u; c++) {
            partial[h * D + 4u * lid + c] = a[c] / l;
        }
{{- else}}
        let base = (h * p.Splits + s) * (D + 2u);
        if (lid == 0u) {
            partial[base] = m;
            partial[base + 1u] = l;
        }
        for (var c = 0u; c < 4u; c++) {
            partial[base + 2u + 4u * lid + c] = a[c];
        }
{{- end}}
    }
}
