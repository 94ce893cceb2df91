// Rotary position embedding in place on x[M][Heads][HeadDim], one thread per
// rotated pair. Normal mode pairs (2j, 2j+1), NEOX pairs (j, j + NRot/2);
// dims >= NRot are left alone. The angle follows ggml: pos * FreqScale *
// FreqBase^(-2j/NRot), divided by freq_factors[j] when present; cos and sin
// are multiplied by attn_factor (ggml_rope_ext's).
struct Params {
    M: u32,
    Heads: u32,
    HeadDim: u32,
    NRot: u32,
    Pos0: u32,
    freq_base: f32,
    freq_scale: f32,
    attn_factor: f32,
}

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read_write> x: array<f32>;
{{- if .FreqFactors}}
@group(0) @binding(2) var<storage, read> freq_factors: array<f32>;
{{- end}}

@compute @workgroup_size({{.WG}})
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
    let half = p.NRot / 2u;
    let idx = wg_linear(wid, nwg) * {{.WG}}u + lid;
    if (idx >= p.M * p.Heads * half) {
        return;
    }
    let j = idx % half;
    let th = idx / half; // token * Heads + head
    let i = th / p.Heads;
    let pos = f32(p.Pos0 + i);
    var theta = p.freq_scale * pos * pow(p.freq_base, -2.0 * f32(j) / f32(p.NRot));
{{- if .FreqFactors}}
    theta = theta / freq_factors[j];
{{- end}}
    let c = cos(theta) * p.attn_factor;
    let s = sin(theta) * p.attn_factor;
    let base = th * p.HeadDim;
{{- if .Neox}}
    let a = base + j;
    let b = base + j + half;
{{- else}}
    let a = base + 2u * j;
    let b = a + 1u;
{{- end}}
    let x0 = x[a];
    let x1 = x[b];
    x[a] = x0 * c - x1 * s;
    x[b] = x0 * s + x1 * c;
}
