{{define "kvbind"}}
{{- if .KVF16}}
@group(0) @binding(2) var<storage, read> k_cache: array<u32>;
@group(0) @binding(3) var<storage, read> v_cache: array<u32>;

// Pair i (elements 2i, 2i+1) of the K cache, as f32.
fn kpair(i: u32) -> vec2<f32> {
    return h2f(k_cache[i]);
}

fn vpair(i: u32) -> vec2<f32> {
    return h2f(v_cache[i]);
}
{{- else}}
@group(0) @binding(2) var<storage, read> k_cache: array<vec2<f32>>;
@group(0) @binding(3) var<storage, read> v_cache: array<vec2<f32>>;

fn kpair(i: u32) -> vec2<f32> {
    return k_cache[i];
}

fn vpair(i: u32) -> vec2<f32> {
    return v_cache[i];
}
{{- end}}
{{end}}
{{define "kvbind_quad"}}
{{- /* kvbind for kernels reading the cache by quads (elements 4i..4i+3,
HeadDim % 4 == 0): an f16 cache is bound as vec2<u32> so that a quad is one
8-byte load, not two of 4 bytes (H100, Llama-1B q4_0 tg step at depth 2048:
the Coop decode kernel 339 -> 273 µs over 16 layers, f32 361). */}}
{{- if .KVF16}}
@group(0) @binding(2) var<storage, read> k_cache: array<vec2<u32>>;
@group(0) @binding(3) var<storage, read> v_cache: array<vec2<u32>>;

// Quad i of the cache row starting at pair b (even), as f32.
fn kquad(b: u32, i: u32) -> vec4<f32> {
    let w = k_cache[(b >> 1u) + i];
    return vec4<f32>(h2f(w.x), h2f(w.y));
}

fn vquad(b: u32, i: u32) -> vec4<f32> {
    let w = v_cache[(b >> 1u) + i];
    return vec4<f32>(h2f(w.x), h2f(w.y));
}
{{- else}}
{{- template "kvbind" .}}

// Quad i of the cache row starting at pair b.
fn kquad(b: u32, i: u32) -> vec4<f32> {
    return vec4<f32>(kpair(b + 2u * i), kpair(b + 2u * i + 1u));
}

fn vquad(b: u32, i: u32) -> vec4<f32> {
    return vec4<f32>(vpair(b + 2u * i), vpair(b + 2u * i + 1u));
}
{{- end}}
{{end}}

{{- define "attn_decode_io"}}
{{- /* The decode attention kernels' parameters and bindings (attn_decode,
its Coop, GQA and wide forms): q, the caches (by pairs, or by quads for the
Coop forms) and the partials (or, with NoSplit, the output). */}}
{{- if .Ring}}
// Ring (Key.Ring): position t is cache row t mod Ctx.
{{- end}}
struct Params {
    Heads: u32,
    KVHeads: u32,
    L: u32,
    Ctx: u32,
    Splits: u32,
    scale: f32,
    pad0: u32,
    pad1: u32,
}

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read> q: array<vec2<f32>>;
{{- if .Coop}}
{{- template "kvbind_quad" .}}
{{- else}}
{{- template "kvbind" .}}
{{- end}}
@group(0) @binding(4) var<storage, read_write> partial: array<f32>;
{{- end}}
