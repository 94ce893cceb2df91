// Flash-decoding, split pass. Workgroup (s, h): query head h over its share
// [t0, t1) of the L cached positions of KV head h / (Heads / KVHeads) (GQA).
// Keys are taken WG at a time (one thread per key for q·k, then one thread
// per head dim for the V sum) with an online softmax, and the partial
// (max, sum of exp, unnormalized acc[D]) goes to partial[h][s] for attn_merge.
// With NoSplit the grid has one split and the kernel writes the normalized
// output out[h][D] (binding 4) itself, saving the merge dispatch. Grid
// columns s >= Splits do nothing (a grid recorded for more splits than this
// step runs).
// With G = Key.Group > 1 (GQA), workgroup (s, hk) serves the G query heads
// hk*G .. hk*G+G-1 that share KV head hk: each K row and V element is read
// once for G heads instead of G times. Heads must equal KVHeads*G.
{{- template "attn_decode_io" .}}

const D: u32 = {{.HeadDim}}u;
const HP: u32 = D / 2u;
const WG: u32 = {{.WG}}u;
const DPT: u32 = {{.DPT}}u;
const G: u32 = {{.Group}}u;
const NEG: f32 = -3.0e38;
{{- if .Window}}
const WIN: u32 = {{.Window}}u; // sliding window (Key.Window): keys [L-WIN, L) only
{{- end}}
{{- if .Softcap}}
const CAP: f32 = {{f32 .Softcap}}; // score soft-cap (Key.Softcap)
{{- end}}
const VU: u32 = 8u; // V rows loaded per step
// K pairs loaded per step: the largest of 8, 4, 2, 1 dividing HP.
const KU: u32 = {{if eq (mul (div .HeadDim 16) 16) .HeadDim}}8u{{else if eq (mul (div .HeadDim 8) 8) .HeadDim}}4u{{else if eq (mul (div .HeadDim 4) 4) .HeadDim}}2u{{else}}1u{{end}};

var<workgroup> qs: array<vec2<f32>, {{mul .Group (div .HeadDim 2)}}>;
var<workgroup> sc: array<f32, {{mul .Group .WG}}>;
var<workgroup> red: array<f32, {{.WG}}>;

{{- template "wg_maxsum" "f32"}}

@compute @workgroup_size({{.WG}})
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let s = wid.x;
    if (s >= p.Splits) {
        return; // a grid wider than this step's split count (the whole workgroup leaves)
    }
{{- if gt .Group 1}}
    let hk = wid.y;
    let h0 = wid.y * G;
{{- else}}
    let hk = wid.y / (p.Heads / p.KVHeads);
    let h0 = wid.y;
{{- end}}
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
    for (var i = lid; i < G * HP; i += WG) {
        qs[i] = q[h0 * HP + i] * p.scale;
    }
    workgroupBarrier();
    let kvbase = hk * p.Ctx * HP;
    var m: array<f32, G>;
    var l: array<f32, G>;
    var corr: array<f32, G>;
    var acc: array<f32, {{mul .Group .DPT}}>;
    for (var g = 0u; g < G; g++) {
        m[g] = NEG;
        l[g] = 0.0;
    }
    for (var j = 0u; j < G * DPT; j++) {
        acc[j] = 0.0;
    }
    for (var tb = t0; tb < t1; tb += WG) {
        let t = tb + lid;
        var sv: array<f32, G>;
        for (var g = 0u; g < G; g++) {
            sv[g] = NEG;
        }
        if (t < t1) {
            for (var g = 0u; g < G; g++) {
                sv[g] = 0.0;
            }
            let kb = kvbase + {{if .Ring}}(t % p.Ctx){{else}}t{{end}} * HP;
            for (var i0 = 0u; i0 < HP; i0 += KU) { // KU loads issued together
                var kv: array<vec2<f32>, KU>;
                for (var r = 0u; r < KU; r++) {
                    kv[r] = kpair(kb + i0 + r); // one K load serves all G heads
                }
                for (var g = 0u; g < G; g++) {
                    for (var r = 0u; r < KU; r++) {
                        sv[g] += dot(qs[g * HP + i0 + r], kv[r]);
                    }
                }
            }
{{- if .Softcap}}
            for (var g = 0u; g < G; g++) {
                sv[g] = CAP * tanh(clamp(sv[g] / CAP, -15.0, 15.0));
            }
{{- end}}
        }
        for (var g = 0u; g < G; g++) {
            let mn = max(m[g], wg_max(lid, sv[g]));
            var e = 0.0;
            if (t < t1) {
                e = exp(sv[g] - mn);
            }
            sc[g * WG + lid] = e;
            corr[g] = exp(m[g] - mn);
            l[g] = l[g] * corr[g] + wg_sum(lid, e); // wg_sum's barriers also publish sc
            m[g] = mn;
        }
        let nt = min(WG, t1 - tb);
        for (var j = 0u; j < DPT; j++) {
            let d = lid + j * WG;
            if (d < D) {
                var a: array<f32, G>;
                for (var g = 0u; g < G; g++) {
                    a[g] = acc[g * DPT + j] * corr[g];
                }
{{- if .Ring}}
                let vb = kvbase + (d >> 1u);
{{- else}}
                let vb = kvbase + tb * HP + (d >> 1u);
{{- end}}
                let odd = (d & 1u) == 1u;
                // VU keys a step: their V loads are issued together rather
                // than one load's latency per key (the loop's serial chain).
                var u = 0u;
                for (; u + VU <= nt; u += VU) {
                    var vs: array<f32, VU>;
                    for (var r = 0u; r < VU; r++) {
                        let vv = vpair(vb + {{if .Ring}}((tb + u + r) % p.Ctx){{else}}(u + r){{end}} * HP);
                        vs[r] = select(vv.x, vv.y, odd); // one V load serves all G heads
                    }
                    for (var g = 0u; g < G; g++) {
                        for (var r = 0u; r < VU; r++) {
                            a[g] += sc[g * WG + u + r] * vs[r];
                        }
                    }
                }
                for (; u < nt; u++) {
                    let vv = vpair(vb + {{if .Ring}}((tb + u) % p.Ctx){{else}}u{{end}} * HP);
                    let v = select(vv.x, vv.y, odd);
                    for (var g = 0u; g < G; g++) {
                        a[g] += sc[g * WG + u] * v;
                    }
                }
                for (var g = 0u; g < G; g++) {
                    acc[g * DPT + j] = a[g];
                }
            }
        }
        workgroupBarrier(); // sc is rewritten by the next tile
    }
    for (var g = 0u; g < G; g++) {
        let h = h0 + g;
{{- if .NoSplit}}
        // One split: normalize here and write out[h][d]; no merge pass.
        for (var j = 0u; j < DPT; j++) {
            let d = lid + j * WG;
            if (d < D) {
                partial[h * D + d] = acc[g * DPT + j] / l[g];
            }
        }
{{- else}}
        let base = (h * p.Splits + s) * (D + 2u);
        if (lid == 0u) {
            partial[base] = m[g];
            partial[base + 1u] = l[g];
        }
        for (var j = 0u; j < DPT; j++) {
            let d = lid + j * WG;
            if (d < D) {
                partial[base + 2u + d] = acc[g * DPT + j];
            }
        }
{{- end}}
    }
}
