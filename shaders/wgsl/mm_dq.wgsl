{{define "mm_dq"}}
{{- /* The matmul's staging reads of weight format .Weight (matmul.wgsl):
w2, and with TK % 4 == 0 dq4 (4 elements at once) and, for the formats
with a scale cache, dsc (a block's scale pair) and dqs (4 elements with
it). A QKV matmul of mixed formats (Key.WeightK/WeightV, tmplData.MixedQKV)
gets a copy per matrix, renamed _k and _v (build.go), each with ldw4. */}}{{- if or (eq .Weight.String "q4_0") (eq .Weight.String "q8_0")}}

// The 4 bytes at even byte offset b as one word: two loads and a funnel
// shift, branch-free as rd4x (neighbouring rows alternate alignment).
fn w2(b: u32) -> u32 {
    let i = b >> 2u;
    let sh = (b & 2u) << 3u;
    return (wword(i) >> sh) | ((wword(i + 1u) << 1u) << (31u - sh));
}
{{- end}}
{{- if eq (mul (div .TK 4) 4) .TK}}
{{- $t := .Weight.String}}
{{- if and .Packed (eq $t "q4_0")}}

// Elements e..e+3 (e % 4 == 0): one word of nibbles (dq in dq/q4_0p.wgsl).
fn dq4(rb: u32, e: u32) -> vec4<f32> {
    return dqs(rb, e, dsc(rb, e));
}

fn dsc(rb: u32, e: u32) -> vec2<f32> {
    return vec2<f32>(rdh(pk_s(rb, e / BS)), 0.0);
}

fn dqs(rb: u32, e: u32, s: vec2<f32>) -> vec4<f32> {
    let i = e % BS;
    let q = (wword((pk_q(rb, e / BS) + (i & 15u)) >> 2u) >> ((i >> 4u) << 2u)) & 0x0f0f0f0fu;
    return s.x * (ub(q) - vec4<f32>(8.0));
}
{{- else if and .Packed (eq $t "q8_0")}}

// Elements e..e+3 (e % 4 == 0): one word of signed bytes (dq/q8_0p.wgsl).
fn dq4(rb: u32, e: u32) -> vec4<f32> {
    return dqs(rb, e, dsc(rb, e));
}

fn dsc(rb: u32, e: u32) -> vec2<f32> {
    return vec2<f32>(rdh(pk_s(rb, e / BS)), 0.0);
}

fn dqs(rb: u32, e: u32, s: vec2<f32>) -> vec4<f32> {
    let u = e / BS;
    let i = e % BS;
    let q = wword((select(pk_q(rb, u), pk_hi(rb, u), i >= 16u) + (i & 15u)) >> 2u);
    return s.x * (ub(q ^ 0x80808080u) - vec4<f32>(128.0));
}
{{- else if or (eq $t "q4_0") (eq $t "q8_0")}}

// Elements e..e+3 (e % 4 == 0) of a ggml-order block (dq/q4_0.wgsl,
// dq/q8_0.wgsl): the f16 scale first, then the quants at an even byte
// offset, read as one word (w2).
fn dq4(rb: u32, e: u32) -> vec4<f32> {
    return dqs(rb, e, dsc(rb, e));
}

fn dsc(rb: u32, e: u32) -> vec2<f32> {
    return vec2<f32>(rdh(rb + (e / BS) * TS), 0.0);
}

fn dqs(rb: u32, e: u32, s: vec2<f32>) -> vec4<f32> {
{{- if eq $t "q4_0"}}
    let i = e % BS;
    let q = (w2(rb + (e / BS) * TS + 2u + (i & 15u)) >> ((i >> 4u) << 2u)) & 0x0f0f0f0fu;
    return s.x * (ub(q) - vec4<f32>(8.0));
{{- else}}
    let q = w2(rb + (e / BS) * TS + 2u + e % BS);
    return s.x * (ub(q ^ 0x80808080u) - vec4<f32>(128.0));
{{- end}}
}
{{- else if and .Packed (eq $t "q6_K")}}

// Elements e..e+3 (e % 4 == 0) of the packed layout (dq/q6_Kp.wgsl): one
// word of low nibbles, one of high bit pairs; the scale pair is d·sc of the
// element's 16-element half.
fn dq4(rb: u32, e: u32) -> vec4<f32> {
    return dqs(rb, e, dsc(rb, e));
}

fn dsc(rb: u32, e: u32) -> vec2<f32> {
    let u = e >> 5u;
    let c = rb + (u >> 6u) * 1680u;
    let j = u & 63u;
    return vec2<f32>(rdh(c + 1664u + (j >> 3u) * 2u) * f32(rd8s(c + 1536u + j * 2u + ((e & 31u) >> 4u))), 0.0);
}

fn dqs(rb: u32, e: u32, s: vec2<f32>) -> vec4<f32> {
    let u = e >> 5u;
    let c = rb + (u >> 6u) * 1680u;
    let j = u & 63u;
    let l = e & 31u;
    let lo = (wword((c + j * 16u + (l & 15u)) >> 2u) >> ((l >> 4u) << 2u)) & 0x0f0f0f0fu;
    let hi = (wword((c + 1024u + j * 8u + ((l >> 4u) << 2u)) >> 2u) >> (((l >> 2u) & 3u) << 1u)) & 0x03030303u;
    return s.x * (ub(lo | (hi << 4u)) - vec4<f32>(32.0));
}
{{- else if eq $t "q4_K"}}

// Elements e..e+3 (e % 4 == 0) share a sub-block: one scale/min pair and
// one word of nibbles (dq/q4_K.wgsl).
fn dq4(rb: u32, e: u32) -> vec4<f32> {
    return dqs(rb, e, dsc(rb, e));
}

// (d·scale, dmin·min) of e's sub-block.
fn dsc(rb: u32, e: u32) -> vec2<f32> {
    let b = rb + (e / BS) * TS;
    let sm = scale_min_k4(b + 4u, (e % BS) >> 5u);
    return vec2<f32>(rdh(b) * sm.x, rdh(b + 2u) * sm.y);
}

fn dqs(rb: u32, e: u32, s: vec2<f32>) -> vec4<f32> {
    let b = rb + (e / BS) * TS;
    let i = e % BS;
    let c = i >> 6u;
    let r = i & 63u;
    let q = (wword((b + 16u + (c << 5u) + (r & 31u)) >> 2u) >> ((r >> 5u) << 2u)) & 0x0f0f0f0fu;
    return s.x * ub(q) - vec4<f32>(s.y);
}
{{- else if and .WLoad (eq $t "f16")}}

// The 4 elements of one 8-byte load (WLoad, matmul.wgsl).
fn wcv(q: vec2<u32>) -> vec4<f32> {
    return vec4<f32>(h2f(q.x), h2f(q.y));
}
{{- else if and .WLoad (eq $t "bf16")}}

// The 4 elements of one 8-byte load (WLoad); a bf16 is the top half of an
// f32.
fn wcv(q: vec2<u32>) -> vec4<f32> {
    return bitcast<vec4<f32>>(vec4<u32>(q.x << 16u, q.x & 0xffff0000u, q.y << 16u, q.y & 0xffff0000u));
}
{{- else if and .WLoad (eq $t "f32")}}

// The 4 elements of one 16-byte load (WLoad).
fn wcv(q: vec4<u32>) -> vec4<f32> {
    return bitcast<vec4<f32>>(q);
}
{{- else if eq $t "f16"}}

// Elements e..e+3: two words when rb + e is even (rows of odd K alternate).
fn dq4(rb: u32, e: u32) -> vec4<f32> {
    let i = rb + e;
    if ((i & 1u) == 0u) {
        return vec4<f32>(h2f(wword(i >> 1u)), h2f(wword((i >> 1u) + 1u)));
    }
    return vec4<f32>(dq(rb, e), dq(rb, e + 1u), dq(rb, e + 2u), dq(rb, e + 3u));
}
{{- else}}

fn dq4(rb: u32, e: u32) -> vec4<f32> {
    return vec4<f32>(dq(rb, e), dq(rb, e + 1u), dq(rb, e + 2u), dq(rb, e + 3u));
}
{{- end}}
{{- end}}
{{- if .MixedQKV}}
{{- $q4k := and (eq (mul (div .TK 4) 4) .TK) (or (eq .Weight.String "q4_K") (eq .Weight.String "q4_0") (eq .Weight.String "q8_0") (and .Packed (eq .Weight.String "q6_K")))}}

// Elements e..e+3 (e % 4 == 0, inside the row) of the row at rb for
// staging slot si: through the slot's scale cache (wsm, wsk) where the
// format has one. A slot's row, so its matrix, is fixed for the whole
// product, so each slot's cache holds one format's pairs.
fn ldw4(rb: u32, e: u32, si: u32) -> vec4<f32> {
{{- if $q4k}}
    if ((e >> {{if eq .Weight.String "q6_K"}}4{{else}}5{{end}}u) != wsk[si]) {
        wsk[si] = e >> {{if eq .Weight.String "q6_K"}}4{{else}}5{{end}}u;
        wsm[si] = dsc(rb, e);
    }
    return dqs(rb, e, wsm[si]);
{{- else}}
    return dq4(rb, e);
{{- end}}
}
{{- end}}
{{end}}
