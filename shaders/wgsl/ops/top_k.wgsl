// Top-k on the GPU in one workgroup. Each thread keeps a sorted private list
// of the k best of its strided share of x; then k rounds of a workgroup
// argmax over the threads' list heads pop the global order (every global
// top-k element is in its thread's local top-k). out[r] = index,
// out[KMAX + r] = f32 bits, best first; lower index first on ties.
struct Params {
    N: u32,
    K: u32,
    pad0: u32,
    pad1: u32,
}

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read> x: array<f32>;
@group(0) @binding(2) var<storage, read_write> out: array<u32>;

const WG: u32 = {{.WG}}u;
const KMAX: u32 = {{.TopK}}u;
const NONE: u32 = 0xffffffffu;

var<workgroup> rv: array<f32, {{.WG}}>;
var<workgroup> ri: array<u32, {{.WG}}>;

fn better(v: f32, i: u32, w: f32, j: u32) -> bool {
    if (i == NONE) {
        return false;
    }
    if (j == NONE) {
        return true;
    }
    return v > w || (v == w && i < j);
}

@compute @workgroup_size({{.WG}})
fn main(@builtin(local_invocation_index) lid: u32) {
    let k = min(p.K, KMAX);
    var lv: array<f32, KMAX>;
    var li: array<u32, KMAX>;
    var cnt = 0u;
    for (var i = lid; i < p.N; i += WG) {
        let v = x[i];
        // i grows, so an equal value never displaces an earlier entry.
        if (is_nan(v) || (cnt == k && !(v > lv[k - 1u]))) {
            continue;
        }
        var j = min(cnt, k - 1u);
        while (j > 0u && v > lv[j - 1u]) {
            lv[j] = lv[j - 1u];
            li[j] = li[j - 1u];
            j--;
        }
        lv[j] = v;
        li[j] = i;
        cnt = min(cnt + 1u, k);
    }
    var head = 0u;
    for (var r = 0u; r < k; r++) {
        if (head < cnt) {
            rv[lid] = lv[head];
            ri[lid] = li[head];
        } else {
            rv[lid] = 0.0;
            ri[lid] = NONE;
        }
        workgroupBarrier();
        for (var s = WG / 2u; s > 0u; s >>= 1u) {
            if (lid < s && better(rv[lid + s], ri[lid + s], rv[lid], ri[lid])) {
                rv[lid] = rv[lid + s];
                ri[lid] = ri[lid + s];
            }
            workgroupBarrier();
        }
        let wi = ri[0];
        if (lid == 0u) {
            out[r] = wi;
            out[KMAX + r] = bitcast<u32>(rv[0]);
        }
        if (head < cnt && li[head] == wi) {
            head++;
        }
        workgroupBarrier();
    }
}
