// Embedding lookup: y[i][e] = dequant(W[ids[i]])[e]. Workgroup (x, y) of
// grid layer z takes row wg_linear's share z of the nwg.z equal spans of K
// (Shape.K gives one span a workgroup of threads, so a decode step's row is
// one dequant a thread on K/WG workgroups, not K/WG serial ones on one).
// With a table split by rows across bindings, one dispatch per part: w holds
// rows [First, First+Rows) of Total, and rows whose id is another part's are
// left to that part (see shaders.GetRowsParams).
struct Params {
    K: u32,
    M: u32,
    Rows: u32,
    First: u32,
    Total: u32,
    pad0: u32,
    pad1: u32,
    pad2: u32,
}

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read> w: array<u32>;

fn wword(i: u32) -> u32 {
    return w[i];
}
@group(0) @binding(2) var<storage, read> ids: array<u32>;
@group(0) @binding(3) var<storage, read_write> y: array<f32>;

const WG: u32 = {{.WG}}u;

@compute @workgroup_size({{.WG}})
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
    let i = wg_linear(wid, nwg);
    if (i >= p.M) {
        return;
    }
    let K = p.K;
    let id = ids[i];
    if (id < p.First) {
        return; // an earlier part's row
    }
    let r = id - p.First;
    let ok = r < p.Rows;
    if (!ok && (p.First != 0u || id < p.Total)) {
        return; // a later part's row
    }
    let rb = row_base(select(0u, r, ok), K);
    let span = (K + nwg.z - 1u) / nwg.z;
    let e1 = min(K, (wid.z + 1u) * span);
    for (var e = wid.z * span + lid; e < e1; e += WG) {
        var v = 0.0;
        if (ok) {
            v = dq(rb, e);
        }
        y[i * K + e] = v;
    }
}
