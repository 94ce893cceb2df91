// Flash-decoding split pass (or, with NoSplit, the one-pass kernel) for wide
// heads (Key.Coop with Key.TK < WG): the same results and bindings as
// attn_decode_coop.wgsl, one query head a workgroup, TK keys a tile and
// T = WG/TK threads a key.
//
// attn_decode_coop.wgsl gives each thread a whole key for q·k and, at head
// size 256 on 64 threads, all 64 keys of a tile for its four V dims: four
// rounds of 16 dependent loads for K and four for V, which made Gemma 3's
// decode attention ~22 µs a layer on an H200 even at a few dozen
// positions. Here the T threads of a key take Q/T quads each, and the V sum
// spreads a tile's keys over WG/Q key groups, so that a tile's K and V
// loads go out together in one round; the tile's max is read by every
// thread from workgroup memory (no reduction tree), and each thread sums
// the softmax weights of its own V keys, the groups' sums meeting once at
// the end with the V sums.
{{- template "attn_decode_io" .}}

const D: u32 = {{.HeadDim}}u;
const HP: u32 = D / 2u;
const Q: u32 = D / 4u;       // quads a row
const WG: u32 = {{.WG}}u;    // threads
const TK: u32 = {{.TK}}u;    // keys a tile
const T: u32 = WG / TK;      // threads a key in q·k
const QT: u32 = Q / T;       // quads a thread in q·k
const KG: u32 = WG / Q;      // key groups of the V sum
const VPT: u32 = TK / KG;    // keys a thread in the V sum, per tile
const TQ: u32 = TK / 4u;     // quads of scores a tile
const NEG: f32 = -3.0e38;
{{- if .Window}}
const WIN: u32 = {{.Window}}u; // sliding window (Key.Window): keys [L-WIN, L) only
{{- end}}
{{- if .Softcap}}
const CAP: f32 = {{f32 .Softcap}}; // score soft-cap (Key.Softcap)
{{- end}}

var<workgroup> qs: array<vec4<f32>, Q>;
var<workgroup> dots: array<f32, WG>;       // q·k partial sums, T a key
var<workgroup> sc: array<vec4<f32>, TQ>; // the tile's scores, NEG past the range
var<workgroup> vsum: array<vec4<f32>, WG>;
var<workgroup> lsum: array<f32, KG>;

fn row(t: u32, kvbase: u32) -> u32 {
    return kvbase + {{if .Ring}}(t % p.Ctx){{else}}t{{end}} * HP;
}

fn score(u: u32) -> f32 {
    return sc[u / 4u][u % 4u];
}

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
    let kvbase = hk * p.Ctx * HP;
    let kk = lid / T;  // q·k: this thread's key in the tile
    let kp = lid % T;  // and its part of the row (quads kp·QT ..)
    let j = lid % Q;   // V sum: this thread's quad
    let g = lid / Q;   // and its key group (keys g, g+KG, ...)
    for (var i = lid; i < Q; i += WG) {
        qs[i] = vec4<f32>(q[h * HP + 2u * i], q[h * HP + 2u * i + 1u]) * p.scale;
    }
    var m = NEG;
    var l = 0.0;
    var acc = vec4<f32>(0.0);
    for (var tb = t0; tb < t1; tb += TK) {
        // The tile's K and V loads go out together: V does not depend on
        // the scores, only its weighting does.
        let t = tb + kk;
        var kq: array<vec4<f32>, QT>;
        for (var r = 0u; r < QT; r++) {
            kq[r] = vec4<f32>(0.0);
            if (t < t1) {
                kq[r] = kquad(row(t, kvbase), kp * QT + r);
            }
        }
        var vq: array<vec4<f32>, VPT>;
        for (var r = 0u; r < VPT; r++) {
            let u = tb + g + r * KG;
            vq[r] = vec4<f32>(0.0);
            if (u < t1) {
                vq[r] = vquad(row(u, kvbase), j);
            }
        }
        workgroupBarrier(); // qs staged (first tile); sc free (later tiles)
        var dp = 0.0;
        for (var r = 0u; r < QT; r++) {
            dp += dot(qs[kp * QT + r], kq[r]);
        }
        dots[lid] = dp;
        workgroupBarrier();
        if (lid < TQ) {
            var v = vec4<f32>(NEG);
            for (var c = 0u; c < 4u; c++) {
                let key = 4u * lid + c;
                if (tb + key < t1) {
                    var sv = 0.0;
                    for (var x = 0u; x < T; x++) {
                        sv += dots[key * T + x];
                    }
{{- if .Softcap}}
                    sv = CAP * tanh(clamp(sv / CAP, -15.0, 15.0));
{{- end}}
                    v[c] = sv;
                }
            }
            sc[lid] = v;
        }
        workgroupBarrier();
        // Online softmax: every thread reads the tile's max; the tile has a
        // key in range (tb < t1), so mn is finite and NEG scores weigh 0.
        var mt = vec4<f32>(NEG);
        for (var u = 0u; u < TQ; u++) {
            mt = max(mt, sc[u]);
        }
        let mn = max(m, max(max(mt.x, mt.y), max(mt.z, mt.w)));
        let corr = exp(m - mn);
        acc *= corr;
        l *= corr;
        m = mn;
        for (var r = 0u; r < VPT; r++) {
            let e = exp(score(g + r * KG) - mn);
            l += e;
            acc += e * vq[r];
        }
    }
    vsum[lid] = acc;
    if (j == 0u) {
        lsum[g] = l; // l of group g's keys (every thread of a group has the same)
    }
    workgroupBarrier();
    if (lid < Q) {
        var a = vec4<f32>(0.0);
        var lt = 0.0;
        for (var k = 0u; k < KG; k++) {
            a += vsum[k * Q + lid];
            lt += lsum[k];
        }
{{- if .NoSplit}}
        // One split: normalize here and write out[h][d]; no merge pass.
        for (var c = 0u; c < 4u; c++) {
            partial[h * D + 4u * lid + c] = a[c] / lt;
        }
{{- else}}
        let base = (h * p.Splits + s) * (D + 2u);
        if (lid == 0u) {
            partial[base] = m;
            partial[base + 1u] = lt;
        }
        for (var c = 0u; c < 4u; c++) {
            partial[base + 2u + 4u * lid + c] = a[c];
        }
{{- end}}
    }
}
