// Top-k on the GPU in two passes, because one workgroup scanning a whole
// vocabulary is serial: 128256 logits took ~4 ms on an H100, five times
// the rest of the decode step (sampled tg 177 vs greedy 996 tok/s).
//
// Scan pass (Merge false), grid of G workgroups: workgroup g takes the
// contiguous chunk g of x (N/G elements, rounded up). Each thread keeps a
// sorted private list of the k best of its strided share of the chunk;
// then k rounds of a workgroup argmax over the threads' list heads pop the
// chunk's order (every top-k element of the chunk is in its thread's local
// top-k). List g goes to out[g*2*KMAX + r] = index, out[g*2*KMAX + KMAX + r]
// = f32 bits, best first, NONE-padded past the chunk's non-NaN elements.
// With G = 1 that list is the answer.
//
// Merge pass (Merge true), one workgroup: x holds the scan pass's N lists;
// thread i owns list i (N <= WG) and the same k rounds of argmax over the
// list heads pop the global order into out[0:2*KMAX]. Chunks are disjoint
// and contiguous, so indices are unique and the tie order (lower index
// first) carries over.
struct Params {
    N: u32,
    K: u32,
    pad0: u32,
    pad1: u32,
}

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read> x: array<{{if .Merge}}u32{{else}}f32{{end}}>;
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
fn main(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>,
        @builtin(num_workgroups) nwg: vec3<u32>) {
    let k = min(p.K, KMAX);
{{- if .Merge}}
    // List lid's entries: index at base + r, value bits at base + KMAX + r.
    let base = lid * 2u * KMAX;
    let mine = lid < p.N;
    var head = 0u;
    for (var r = 0u; r < k; r++) {
        if (mine && head < k) {
            rv[lid] = bitcast<f32>(x[base + KMAX + head]);
            ri[lid] = x[base + head];
        } else {
            rv[lid] = 0.0;
            ri[lid] = NONE;
        }
{{- else}}
    let chunk = (p.N + nwg.x - 1u) / nwg.x;
    let lo = wid.x * chunk;
    let hi = min(p.N, lo + chunk);
    var lv: array<f32, KMAX>;
    var li: array<u32, KMAX>;
    var cnt = 0u;
    for (var i = lo + lid; i < hi; i += WG) {
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
    let base = wid.x * 2u * KMAX;
    var head = 0u;
    for (var r = 0u; r < k; r++) {
        if (head < cnt) {
            rv[lid] = lv[head];
            ri[lid] = li[head];
        } else {
            rv[lid] = 0.0;
            ri[lid] = NONE;
        }
{{- end}}
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
            out[{{if not .Merge}}base + {{end}}r] = wi;
            out[{{if not .Merge}}base + {{end}}KMAX + r] = bitcast<u32>(rv[0]);
        }
{{- if .Merge}}
        if (mine && head < k && x[base + head] == wi && wi != NONE) {
{{- else}}
        if (head < cnt && li[head] == wi) {
{{- end}}
            head++;
        }
        workgroupBarrier();
    }
}
