// Greedy sampling on the GPU: out = (index, f32 bits) of the largest x[i],
// the lowest index on ties; NaN never wins. One workgroup; each thread
// loads U logits a step (its indices i, i+WG, ... in order) so that their
// loads are in flight together: a load per iteration made the scan of a
// 128k vocabulary a chain of ~500 load latencies per thread.
struct Params {
    N: u32,
    pad0: u32,
    pad1: u32,
    pad2: u32,
}

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read> x: array<f32>;
@group(0) @binding(2) var<storage, read_write> out: array<u32>;

const WG: u32 = {{.WG}}u;
const NONE: u32 = 0xffffffffu;
const U: u32 = 16u;

var<workgroup> rv: array<f32, {{.WG}}>;
var<workgroup> ri: array<u32, {{.WG}}>;

// better reports whether (v, i) ranks before (w, j); NONE ranks last.
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
    var bv = 0.0;
    var bi = NONE;
    var i0 = lid;
    for (; i0 + (U - 1u) * WG < p.N; i0 += U * WG) {
        var v: array<f32, U>;
        for (var r = 0u; r < U; r++) {
            v[r] = x[i0 + r * WG];
        }
        for (var r = 0u; r < U; r++) {
            let i = i0 + r * WG;
            if (!is_nan(v[r]) && better(v[r], i, bv, bi)) {
                bv = v[r];
                bi = i;
            }
        }
    }
    for (var i = i0; i < p.N; i += WG) {
        let v = x[i];
        if (!is_nan(v) && better(v, i, bv, bi)) {
            bv = v;
            bi = i;
        }
    }
    rv[lid] = bv;
    ri[lid] = bi;
    workgroupBarrier();
    for (var s = WG / 2u; s > 0u; s >>= 1u) {
        if (lid < s && better(rv[lid + s], ri[lid + s], rv[lid], ri[lid])) {
            rv[lid] = rv[lid + s];
            ri[lid] = ri[lid + s];
        }
        workgroupBarrier();
    }
    if (lid == 0u) {
        out[0] = ri[0];
        out[1] = bitcast<u32>(rv[0]);
    }
}
