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

@compute @workgroup_size({{.WG}})
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let h = wid.x;
    let S = p.Splits;
    var M = -3.0e38;
    for (var s = 0u; s < S; s++) {
        M = max(M, partial[(h * S + s) * (D + 2u)]);
    }
    var L = 0.0;
    for (var s = 0u; s < S; s++) {
        let b = (h * S + s) * (D + 2u);
        L += exp(partial[b] - M) * partial[b + 1u];
    }
    for (var d = lid; d < D; d += {{.WG}}u) {
        var a = 0.0;
        for (var s = 0u; s < S; s++) {
            let b = (h * S + s) * (D + 2u);
            a += exp(partial[b] - M) * partial[b + 2u + d];
        }
        out[h * D + d] = a / L;
    }
}
