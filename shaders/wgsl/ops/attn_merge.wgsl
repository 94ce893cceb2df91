// Flash-decoding, merge pass: out[h] = sum_s e^(m_s - M) acc_s / sum_s e^(m_s - M) l_s
// over the Splits partials of head h. Empty splits carry m = -3e38, l = 0 and
// so weigh nothing.
//
// A workgroup serves DW dims of one head (grid Heads × ceil(D/DW)) with
// LANES threads a dim: lane r folds splits r, r+LANES, … and lane 0 folds
// the lanes' states. At 64–128 splits one thread a dim would walk every
// split's loads one after another; LANES of them shorten that chain.
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
const DW: u32 = 64u; // dims a workgroup
const LANES: u32 = {{.WG}}u / DW;

const MU: u32 = 4u; // splits a lane loads per step

var<workgroup> lanes: array<vec3<f32>, {{.WG}}>;

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
    let dl = lid % DW;
    let lane = lid / DW;
    let d = wid.y * DW + dl;
    var st = vec3<f32>(-3.0e38, 0.0, 0.0); // (M, L, a)
    if (d < D) {
        // MU splits at a time, so that their loads are issued together.
        var s = lane;
        for (; s + (MU - 1u) * LANES < S; s += MU * LANES) {
            var v: array<vec3<f32>, MU>;
            for (var r = 0u; r < MU; r++) {
                let b = (h * S + s + r * LANES) * (D + 2u);
                v[r] = vec3<f32>(partial[b], partial[b + 1u], partial[b + 2u + d]);
            }
            for (var r = 0u; r < MU; r++) {
                merge(&st, v[r].x, v[r].y, v[r].z);
            }
        }
        for (; s < S; s += LANES) {
            let b = (h * S + s) * (D + 2u);
            merge(&st, partial[b], partial[b + 1u], partial[b + 2u + d]);
        }
    }
    lanes[lid] = st;
    workgroupBarrier();
    if (lane == 0u && d < D) {
        for (var r = 1u; r < LANES; r++) {
            let o = lanes[r * DW + dl];
            merge(&st, o.x, o.y, o.z);
        }
        out[h * D + d] = st.z / st.y;
    }
}
