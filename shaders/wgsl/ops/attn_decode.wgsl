// Flash-decoding, split pass. Workgroup (s, h): query head h over its share
// [t0, t1) of the L cached positions of KV head h / (Heads / KVHeads) (GQA).
// Keys are taken WG at a time (one thread per key for q·k, then one thread
// per head dim for the V sum) with an online softmax, and the partial
// (max, sum of exp, unnormalized acc[D]) goes to partial[h][s] for attn_merge.
// With NoSplit the grid has one split and the kernel writes the normalized
// output out[h][D] (binding 4) itself, saving the merge dispatch.
struct Params {
    Heads: u32,
    KVHeads: u32,
    L: u32,
    Ctx: u32,
    Splits: u32,
    scale: f32,
    pad0: u32,
    pad1: u32,
}

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read> q: array<vec2<f32>>;
{{- template "kvbind" .}}
@group(0) @binding(4) var<storage, read_write> partial: array<f32>;

const D: u32 = {{.HeadDim}}u;
const HP: u32 = D / 2u;
const WG: u32 = {{.WG}}u;
const DPT: u32 = {{.DPT}}u;
const NEG: f32 = -3.0e38;

var<workgroup> qs: array<vec2<f32>, {{div .HeadDim 2}}>;
var<workgroup> sc: array<f32, {{.WG}}>;
var<workgroup> red: array<f32, {{.WG}}>;

fn wg_max(lid: u32, v: f32) -> f32 {
    red[lid] = v;
    workgroupBarrier();
    for (var s = WG / 2u; s > 0u; s >>= 1u) {
        if (lid < s) {
            red[lid] = max(red[lid], red[lid + s]);
        }
        workgroupBarrier();
    }
    let r = red[0];
    workgroupBarrier();
    return r;
}

fn wg_sum(lid: u32, v: f32) -> f32 {
    red[lid] = v;
    workgroupBarrier();
    for (var s = WG / 2u; s > 0u; s >>= 1u) {
        if (lid < s) {
            red[lid] += red[lid + s];
        }
        workgroupBarrier();
    }
    let r = red[0];
    workgroupBarrier();
    return r;
}

@compute @workgroup_size({{.WG}})
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let s = wid.x;
    let h = wid.y;
    let hk = h / (p.Heads / p.KVHeads);
    let chunk = (p.L + p.Splits - 1u) / p.Splits;
    let t0 = min(p.L, s * chunk);
    let t1 = min(p.L, t0 + chunk);
    for (var i = lid; i < HP; i += WG) {
        qs[i] = q[h * HP + i] * p.scale;
    }
    workgroupBarrier();
    let kvbase = hk * p.Ctx * HP;
    var m = NEG;
    var l = 0.0;
    var acc: array<f32, DPT>;
    for (var j = 0u; j < DPT; j++) {
        acc[j] = 0.0;
    }
    for (var tb = t0; tb < t1; tb += WG) {
        let t = tb + lid;
        var sv = NEG;
        if (t < t1) {
            var d = 0.0;
            let kb = kvbase + t * HP;
            for (var i = 0u; i < HP; i++) {
                d += dot(qs[i], kpair(kb + i));
            }
            sv = d;
        }
        let mn = max(m, wg_max(lid, sv));
        var e = 0.0;
        if (t < t1) {
            e = exp(sv - mn);
        }
        sc[lid] = e;
        let corr = exp(m - mn);
        l = l * corr + wg_sum(lid, e); // wg_sum's barriers also publish sc
        let nt = min(WG, t1 - tb);
        for (var j = 0u; j < DPT; j++) {
            let d = lid + j * WG;
            if (d < D) {
                var a = acc[j] * corr;
                let vb = kvbase + tb * HP;
                for (var u = 0u; u < nt; u++) {
                    let vv = vpair(vb + u * HP + (d >> 1u));
                    a += sc[u] * select(vv.x, vv.y, (d & 1u) == 1u);
                }
                acc[j] = a;
            }
        }
        m = mn;
        workgroupBarrier(); // sc is rewritten by the next tile
    }
{{- if .NoSplit}}
    // One split: normalize here and write out[h][d]; no merge pass.
    for (var j = 0u; j < DPT; j++) {
        let d = lid + j * WG;
        if (d < D) {
            partial[h * D + d] = acc[j] / l;
        }
    }
{{- else}}
    let base = (h * p.Splits + s) * (D + 2u);
    if (lid == 0u) {
        partial[base] = m;
        partial[base + 1u] = l;
    }
    for (var j = 0u; j < DPT; j++) {
        let d = lid + j * WG;
        if (d < D) {
            partial[base + 2u + d] = acc[j];
        }
    }
{{- end}}
}
