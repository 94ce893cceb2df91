// attn_decode_coop.wgsl for a GQA group (Key.Coop with Key.Group = G > 1):
// the G query heads hk*G .. hk*G+G-1 sharing KV head hk are served by NS
// workgroups of LG heads each (LG <= 4; shaders.gqaLanes: G = 7 is 2 × 4
// with one lane idle), so each K row and V quad is loaded once for LG
// heads instead of once per head, and the grid has KVHeads·NS columns
// instead of Heads. The LG heads' scores, softmax states and reductions
// travel as the lanes of one vecLG, so a tile costs the same barriers as
// one head's (the rounds-of-8 kernel's Group serialised G reductions and
// lost). Thread layout and load batching as the Coop
// kernel: one key a thread for q·k (its K row in batches of BATCH quads),
// then for the V sum thread (g, j) takes dims 4j..4j+3 of keys g, g+KG, ...
// Same results and bindings as attn_decode.wgsl.
{{- template "attn_decode_io" .}}
{{- $vg := printf "vec%d<f32>" .Lanes}}

const D: u32 = {{.HeadDim}}u;
const HP: u32 = D / 2u;
const Q: u32 = D / 4u;          // vec4s per row
const G: u32 = {{.Group}}u;     // query heads of a KV head
const LG: u32 = {{.Lanes}}u;    // of them in one workgroup's lanes
const NS: u32 = {{.Subs}}u;     // workgroups per KV head
const WG: u32 = {{.WG}}u;       // threads, and keys per tile
const KG: u32 = WG / Q;         // key groups of the V sum
const VPT: u32 = WG / KG;       // keys per thread per tile in the V sum
const BATCH: u32 = 16u;         // vec4 loads issued together
const NEG: f32 = -3.0e38;
{{- if .Window}}
const WIN: u32 = {{.Window}}u; // sliding window (Key.Window): keys [L-WIN, L) only
{{- end}}
{{- if .Softcap}}
const CAP: f32 = {{f32 .Softcap}}; // score soft-cap (Key.Softcap)
{{- end}}

var<workgroup> qs: array<vec4<f32>, {{mul .Lanes (div .HeadDim 4)}}>; // lane h's quad i at h*Q + i
var<workgroup> sc: array<{{$vg}}, WG>;
var<workgroup> red: array<{{$vg}}, WG>;
var<workgroup> vsum: array<vec4<f32>, {{mul .Lanes .WG}}>;

{{- template "wg_maxsum" $vg}}

@compute @workgroup_size({{.WG}})
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let s = wid.x;
    if (s >= p.Splits) {
        return; // a grid wider than this step's split count (the whole workgroup leaves)
    }
    let hk = wid.y / NS;
    let h0 = hk * G + (wid.y % NS) * LG; // the first lane's query head
    let nh = min(LG, hk * G + G - h0);    // lanes holding a head of the group
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
    // The lanes' heads are consecutive rows of q: quad i of the lanes is
    // pairs 2i, 2i+1 from head h0's first. Idle lanes get q = 0 (finite
    // scores, outputs not written).
    for (var i = lid; i < LG * Q; i += WG) {
        var qv = vec4<f32>(0.0);
        if (i / Q < nh) {
            qv = vec4<f32>(q[h0 * HP + 2u * i], q[h0 * HP + 2u * i + 1u]) * p.scale;
        }
        qs[i] = qv;
    }
    workgroupBarrier();
    let kvbase = hk * p.Ctx * HP;
    let j = lid % Q;  // this thread's dims 4j..4j+3 in the V sum
    let g = lid / Q;  // and its key group
    var m = {{$vg}}(NEG);
    var l = {{$vg}}(0.0);
    var acc: array<vec4<f32>, LG>;
    for (var h = 0u; h < LG; h++) {
        acc[h] = vec4<f32>(0.0);
    }
    for (var tb = t0; tb < t1; tb += WG) {
        let t = tb + lid;
        var sv = {{$vg}}(NEG);
        if (t < t1) {
            sv = {{$vg}}(0.0);
            let kb = kvbase + {{if .Ring}}(t % p.Ctx){{else}}t{{end}} * HP;
            for (var i0 = 0u; i0 < Q; i0 += BATCH) {
                var kv: array<vec4<f32>, BATCH>;
                for (var r = 0u; r < min(BATCH, Q); r++) {
                    kv[r] = kquad(kb, i0 + r);
                }
                for (var r = 0u; r < min(BATCH, Q); r++) {
                    for (var h = 0u; h < LG; h++) { // one K load serves the LG heads
                        sv[h] += dot(qs[h * Q + i0 + r], kv[r]);
                    }
                }
            }
{{- if .Softcap}}
            sv = CAP * tanh(clamp(sv / CAP, {{$vg}}(-15.0), {{$vg}}(15.0)));
{{- end}}
        }
        // Online softmax of the LG heads at once, as the Coop kernel's
        // coop_softmax lane by lane; sc holds the tile's weights.
        let mn = max(m, wg_max(lid, sv));
        var e = {{$vg}}(0.0);
        if (t < t1) {
            e = exp(sv - mn);
        }
        sc[lid] = e;
        let corr = exp(m - mn);
        l = l * corr + wg_sum(lid, e); // wg_sum's barriers also publish sc
        m = mn;
        for (var h = 0u; h < LG; h++) {
            acc[h] *= corr[h];
        }
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
                let w = sc[g + (r0 + r) * KG]; // 0 past the range
                for (var h = 0u; h < LG; h++) { // one V load serves the LG heads
                    acc[h] += w[h] * vv[r];
                }
            }
        }
        workgroupBarrier(); // sc is rewritten by the next tile
    }
    for (var h = 0u; h < LG; h++) {
        vsum[h * WG + lid] = acc[h];
    }
    workgroupBarrier();
    for (var o = lid; o < nh * Q; o += WG) {
        let h = o / Q;  // the lane
        let jj = o % Q; // and its quad
        var a = vec4<f32>(0.0);
        for (var k = 0u; k < KG; k++) {
            a += vsum[h * WG + k * Q + jj];
        }
        let hh = h0 + h;
{{- if .NoSplit}}
        // One split: normalize here and write out[hh][d]; no merge pass.
        for (var c = 0u; c < 4u; c++) {
            partial[hh * D + 4u * jj + c] = a[c] / l[h];
        }
{{- else}}
        let base = (hh * p.Splits + s) * (D + 2u);
        if (jj == 0u) {
            partial[base] = m[h];
            partial[base + 1u] = l[h];
        }
        for (var c = 0u; c < 4u; c++) {
            partial[base + 2u + 4u * jj + c] = a[c];
        }
{{- end}}
    }
}
