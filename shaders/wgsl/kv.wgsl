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
