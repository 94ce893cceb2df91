// Sum of a split-K matmul's {{.SplitK}} partial products: y[i] = Σ_z
// part[z·Stride + i] for i < N, one thread per element, slices added in
// order (z = 0 first, which carries the residual).
struct Params {
    N: u32,
    Stride: u32,
    pad0: u32,
    pad1: u32,
}

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read> part: array<f32>;
@group(0) @binding(2) var<storage, read_write> y: array<f32>;

@compute @workgroup_size({{.WG}})
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
    let i = wg_linear(wid, nwg) * {{.WG}}u + lid;
    if (i >= p.N) {
        return;
    }
    var v = part[i];
    for (var z = 1u; z < {{.SplitK}}u; z++) {
        v += part[z * p.Stride + i];
    }
    y[i] = v;
}
