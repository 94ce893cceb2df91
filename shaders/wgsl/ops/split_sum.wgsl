// Sum of a split-K matmul's {{.SplitK}} partial products: y[i] = Σ_z
// part[z·Stride + i] for i < N, one thread per element, slices added in
// order (z = 0 first, which carries the residual).
{{- if .QKV}}
// Key.QKV: the partials are a QKV matmul's [M][Cols] rows (Cols = Nq + Nk
// + Nv); column n < Nq goes to y, n < Nq + Nk to yk, the rest to yv, each
// a row-major matrix of its own width.
{{- end}}
struct Params {
    N: u32,
    Stride: u32,
    Cols: u32,
    Nq: u32,
    Nk: u32,
    pad0: u32,
    pad1: u32,
    pad2: u32,
}

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read> part: array<f32>;
@group(0) @binding(2) var<storage, read_write> y: array<f32>;
{{- if .QKV}}
@group(0) @binding(3) var<storage, read_write> yk: array<f32>;
@group(0) @binding(4) var<storage, read_write> yv: array<f32>;
{{- end}}

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
{{- if .QKV}}
    let m = i / p.Cols;
    let n = i % p.Cols;
    if (n < p.Nq) {
        y[m * p.Nq + n] = v;
    } else if (n < p.Nq + p.Nk) {
        yk[m * p.Nk + n - p.Nq] = v;
    } else {
        let nv = p.Cols - p.Nq - p.Nk;
        yv[m * nv + n - p.Nq - p.Nk] = v;
    }
{{- else}}
    y[i] = v;
{{- end}}
}
