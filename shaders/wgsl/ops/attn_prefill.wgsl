// Causal attention for a batch of M queries (prefill). Workgroup (g, h):
// WG consecutive queries of head h, one thread per query, each holding its
// q row and output accumulator privately. K and V are staged BC positions at
// a time in workgroup memory and shared by all WG queries; each thread runs
// an online softmax over the positions <= its own (causal mask).
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
@group(0) @binding(1) var<storage, read> q: array<vec2<f32>>;
{{- template "kvbind" .}}
@group(0) @binding(4) var<storage, read_write> out: array<vec2<f32>>;

const D: u32 = {{.HeadDim}}u;
const HP: u32 = D / 2u;
const WG: u32 = {{.WG}}u;
const BC: u32 = {{.BC}}u;

var<workgroup> kt: array<vec2<f32>, {{mul .BC (div .HeadDim 2)}}>;
var<workgroup> vt: array<vec2<f32>, {{mul .BC (div .HeadDim 2)}}>;

@compute @workgroup_size({{.WG}})
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let h = wid.y;
    let hk = h / (p.Heads / p.KVHeads);
    let i = wid.x * WG + lid;
    let valid = i < p.M;
    let pos = p.Pos0 + i;
    let last = p.Pos0 + min(p.M, (wid.x + 1u) * WG) - 1u; // last position any query here sees
    let qb = (i * p.Heads + h) * HP;
    var qv: array<vec2<f32>, {{div .HeadDim 2}}>;
    var acc: array<vec2<f32>, {{div .HeadDim 2}}>;
    for (var d = 0u; d < HP; d++) {
        acc[d] = vec2<f32>(0.0);
        if (valid) {
            qv[d] = q[qb + d] * p.scale;
        }
    }
    var m = -3.0e38;
    var l = 0.0;
    let kvbase = hk * p.Ctx * HP;
    for (var tb = 0u; tb <= last; tb += BC) {
        for (var j = lid; j < BC * HP; j += WG) {
            let t = tb + j / HP;
            if (t <= last) {
                kt[j] = kpair(kvbase + t * HP + j % HP);
                vt[j] = vpair(kvbase + t * HP + j % HP);
            }
        }
        workgroupBarrier();
        if (valid && tb <= pos) {
            var s: array<f32, {{.BC}}>;
            var mt = m;
            for (var c = 0u; c < BC; c++) {
                if (tb + c <= pos) {
                    var d2 = 0.0;
                    for (var d = 0u; d < HP; d++) {
                        d2 += dot(qv[d], kt[c * HP + d]);
                    }
                    s[c] = d2;
                    mt = max(mt, d2);
                }
            }
            let corr = exp(m - mt);
            l *= corr;
            for (var d = 0u; d < HP; d++) {
                acc[d] *= corr;
            }
            for (var c = 0u; c < BC; c++) {
                if (tb + c <= pos) {
                    let e = exp(s[c] - mt);
                    l += e;
                    for (var d = 0u; d < HP; d++) {
                        acc[d] += e * vt[c * HP + d];
                    }
                }
            }
            m = mt;
        }
        workgroupBarrier();
    }
    if (valid) {
        for (var d = 0u; d < HP; d++) {
            out[qb + d] = acc[d] / l;
        }
    }
}
