// Flash-decoding, merge pass: out[h] = sum_s e^(m_s - M) acc_s / sum_s e^(m_s - M) l_s
// over the Splits partials of head h. Empty splits carry m = -3e38, l = 0 and
// so weigh nothing.
struct Params {
    Heads: u32,
    Splits: u32,
    pad0: u32,
    pad1: u32,
}

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read> partial: array<f32>;
@group(0) @binding(2) var<storage, read_write> out: array<f32>;

const D: u32 = {{.HeadDim}}u;

const MU: u32 = 8u; // splits loaded per step

// merge folds split (m, l, x) into the running (M, L, a) (online softmax).
fn merge(st: ptr<function, vec3<f32>>, m: f32, l: f32, x: f32) {
    let mn = max((*st).x, m);
    let c0 = exp((*st).x - mn);
    let c1 = exp(m - mn);
    *st = vec3<f32>(mn, (*st).y * c0 + l * c1, (*st).z * c0 + x * c1);
}

@compute @workgroup_size({{.WG}})
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let h = wid.x;
    let S = p.Splits;
    for (var d = lid; d < D; d += {{.WG}}u) {
        // One pass over the splits, MU at a time so that their loads are
        // issued together (three dependent passes cost three chains of
        // load latency per split).
        var st = vec3<f32>(-3.0e38, 0.0, 0.0); // (M, L, a)
        var s = 0u;
        for (; s + MU <= S; s += MU) {
            var v: array<vec3<f32>, MU>;
            for (var r = 0u; r < MU; r++) {
                let b = (h * S + s + r) * (D + 2u);
                v[r] = vec3<f32>(partial[b], partial[b + 1u], partial[b + 2u + d]);
            }
            for (var r = 0u; r < MU; r++) {
                merge(&st, v[r].x, v[r].y, v[r].z);
            }
        }
        for (; s < S; s++) {
            let b = (h * S + s) * (D + 2u);
            merge(&st, partial[b], partial[b + 1u], partial[b + 2u + d]);
        }
        out[h * D + d] = st.z / st.y;
    }
}
