// Embedding lookup: y[i][e] = dequant(W[ids[i]])[e]. One workgroup per row.
struct Params {
    K: u32,
    M: u32,
    Rows: u32,
    pad0: u32,
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
    let ok = id < p.Rows;
    let rb = row_base(select(0u, id, ok), K);
    for (var e = lid; e < K; e += WG) {
        var v = 0.0;
        if (ok) {
            v = dq(rb, e);
        }
        y[i * K + e] = v;
    }
}
