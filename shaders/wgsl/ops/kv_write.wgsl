// Writes the new K and V rows k[M][KVHeads][HeadDim] (f32) into the caches
// [KVHeads][Ctx][HeadDim] at positions Pos0.., one thread per pair of
// elements (so an f16 cache word is written whole, by one thread).
{{- if .Ring}}
// Ring (Key.Ring): position Pos0+i is row (Pos0+i) mod Ctx.
{{- end}}
struct Params {
    M: u32,
    KVHeads: u32,
    HeadDim: u32,
    Pos0: u32,
    Ctx: u32,
    pad0: u32,
    pad1: u32,
    pad2: u32,
}

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read> k: array<vec2<f32>>;
@group(0) @binding(2) var<storage, read> v: array<vec2<f32>>;
{{- if .KVF16}}
@group(0) @binding(3) var<storage, read_write> k_cache: array<u32>;
@group(0) @binding(4) var<storage, read_write> v_cache: array<u32>;
{{- else}}
@group(0) @binding(3) var<storage, read_write> k_cache: array<vec2<f32>>;
@group(0) @binding(4) var<storage, read_write> v_cache: array<vec2<f32>>;
{{- end}}

@compute @workgroup_size({{.WG}})
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
    let hp = p.HeadDim / 2u;
    let idx = wg_linear(wid, nwg) * {{.WG}}u + lid;
    if (idx >= p.M * p.KVHeads * hp) {
        return;
    }
    let d = idx % hp;
    let th = idx / hp;
    let h = th % p.KVHeads;
    let i = th / p.KVHeads;
{{- if .Ring}}
    let dst = (h * p.Ctx + (p.Pos0 + i) % p.Ctx) * hp + d;
{{- else}}
    let dst = (h * p.Ctx + p.Pos0 + i) * hp + d;
{{- end}}
{{- if .KVF16}}
    k_cache[dst] = f2h(k[idx]);
    v_cache[dst] = f2h(v[idx]);
{{- else}}
    k_cache[dst] = k[idx];
    v_cache[dst] = v[idx];
{{- end}}
}
