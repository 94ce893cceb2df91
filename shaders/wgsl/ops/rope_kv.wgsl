// Decode/prefill fusion of RoPE and the KV-cache write (three dispatches in
// one): rotates q[M][Heads][HeadDim] in place, and writes RoPE(k) and v
// (both [M][KVHeads][HeadDim], f32) into the caches [KVHeads][Ctx][HeadDim]
// at positions Pos0... Threads [0, QP) rotate one q pair each; the next
// M*KVHeads*HeadDim/2 threads each write one K word (two elements, each
// rotated from k, so an f16 word is written whole by one thread), the last
// as many one V word. Angles as rope.wgsl.
{{- if .Ring}}
// Ring (Key.Ring): position Pos0+i is cache row (Pos0+i) mod Ctx.
{{- end}}
{{- if .Norm}}
// Norm (Key.Norm): each q and k head row is first RMS-normalised over its
// HeadDim elements with its weight (q_norm, k_norm: HeadDim each), as
// rms_norm.wgsl does, x·inverseSqrt(mean(x²) + eps)·w, the sum of squares
// reduced in f32; the rotation then applies to the normed row (NRot dims;
// the rest are normed only). One workgroup per (token, head): workgroups
// [0, M·Heads) rotate the q heads in place, the next M·KVHeads each write
// one K cache row and copy the matching V row. HeadDim <= RoPEKVNormMaxHeadDim.
{{- end}}
struct Params {
    M: u32,
    Heads: u32,
    KVHeads: u32,
    HeadDim: u32,
    NRot: u32,
    Pos0: u32,
    Ctx: u32,
    freq_base: f32,
    freq_scale: f32,
{{- if .Norm}}
    eps: f32,
{{- else}}
    pad0: u32,
{{- end}}
    attn_factor: f32,
    pad2: u32,
}

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read_write> q: array<f32>;
@group(0) @binding(2) var<storage, read> k: array<f32>;
@group(0) @binding(3) var<storage, read> v: array<vec2<f32>>;
{{- if .KVF16}}
@group(0) @binding(4) var<storage, read_write> k_cache: array<u32>;
@group(0) @binding(5) var<storage, read_write> v_cache: array<u32>;
{{- else}}
@group(0) @binding(4) var<storage, read_write> k_cache: array<vec2<f32>>;
@group(0) @binding(5) var<storage, read_write> v_cache: array<vec2<f32>>;
{{- end}}
{{- if .FreqFactors}}
@group(0) @binding(6) var<storage, read> freq_factors: array<f32>;
{{- end}}
{{- if .Norm}}
@group(0) @binding({{if .FreqFactors}}7{{else}}6{{end}}) var<storage, read> q_norm: array<f32>;
@group(0) @binding({{if .FreqFactors}}8{{else}}7{{end}}) var<storage, read> k_norm: array<f32>;
{{- end}}

// cos and sin of pair j's angle at position pos.
fn angle(pos: u32, j: u32) -> vec2<f32> {
    var theta = p.freq_scale * f32(pos) * pow(p.freq_base, -2.0 * f32(j) / f32(p.NRot));
{{- if .FreqFactors}}
    theta = theta / freq_factors[j];
{{- end}}
    return vec2<f32>(cos(theta), sin(theta)) * p.attn_factor;
}

{{if .Norm -}}
const WG: u32 = {{.WG}}u;
const NACC: u32 = 1u;
const MAXD: u32 = {{.MaxHeadDim}}u;

var<workgroup> red: array<f32, {{.WG}}>;
// The normed head row, and its norm weight (loaded with the row).
var<workgroup> hs: array<f32, {{.MaxHeadDim}}>;
var<workgroup> ws: array<f32, {{.MaxHeadDim}}>;

// Element e of the rotated normed head (hs) at position pos.
fn rot_h(e: u32, pos: u32) -> f32 {
    if (e >= p.NRot) {
        return hs[e];
    }
{{- if .Neox}}
    let half = p.NRot / 2u;
    let j = e % half;
    let cs = angle(pos, j);
    if (e < half) {
        return hs[e] * cs.x - hs[e + half] * cs.y;
    }
    return hs[e - half] * cs.y + hs[e] * cs.x;
{{- else}}
    let cs = angle(pos, e >> 1u);
    if ((e & 1u) == 0u) {
        return hs[e] * cs.x - hs[e + 1u] * cs.y;
    }
    return hs[e - 1u] * cs.y + hs[e] * cs.x;
{{- end}}
}

@compute @workgroup_size({{.WG}})
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
    let nq = p.M * p.Heads;
    var th = wg_linear(wid, nwg); // q: token * Heads + head; k: token * KVHeads + head
    if (th >= nq + p.M * p.KVHeads || p.HeadDim > MAXD) {
        return;
    }
    let isk = th >= nq;
    var i: u32;
    if (isk) {
        th -= nq;
        i = th / p.KVHeads;
    } else {
        i = th / p.Heads;
    }
    let D = p.HeadDim;
    let base = th * D;
    var acc: array<f32, 1>;
    acc[0] = 0.0;
    // The row, its norm weight and (k heads) the first V pair of this
    // thread are loaded together: each later load would be another wait
    // in a kernel that is all waits (one workgroup a head).
    let hp0 = D / 2u;
    var v0 = vec2<f32>(0.0);
    if (isk && lid < hp0) {
        v0 = v[th * hp0 + lid];
    }
    for (var e = lid; e < D; e += WG) {
        var x: f32;
        if (isk) {
            x = k[base + e];
            ws[e] = k_norm[e];
        } else {
            x = q[base + e];
            ws[e] = q_norm[e];
        }
        hs[e] = x;
        acc[0] += x * x;
    }
{{template "reduce" .}}
    let inv = inverseSqrt(red[0] / f32(D) + p.eps);
    for (var e = lid; e < D; e += WG) {
        hs[e] = hs[e] * inv * ws[e];
    }
    workgroupBarrier();
    let pos = p.Pos0 + i;
    let hp = D / 2u;
    if (!isk) {
        for (var e = lid; e < D; e += WG) {
            q[base + e] = rot_h(e, pos);
        }
        return;
    }
    let h = th % p.KVHeads;
{{- if .Ring}}
    let row = (h * p.Ctx + pos % p.Ctx) * hp;
{{- else}}
    let row = (h * p.Ctx + pos) * hp;
{{- end}}
    for (var m = lid; m < hp; m += WG) {
        let kv = vec2<f32>(rot_h(2u * m, pos), rot_h(2u * m + 1u, pos));
        var vv = v0;
        if (m != lid) {
            vv = v[th * hp + m];
        }
{{- if .KVF16}}
        k_cache[row + m] = f2h(kv);
        v_cache[row + m] = f2h(vv);
{{- else}}
        k_cache[row + m] = kv;
        v_cache[row + m] = vv;
{{- end}}
    }
}
{{else -}}
// Element e of the rotated head whose first element is k[base].
fn rot_k(base: u32, e: u32, pos: u32) -> f32 {
    if (e >= p.NRot) {
        return k[base + e];
    }
{{- if .Neox}}
    let half = p.NRot / 2u;
    let j = e % half;
    let cs = angle(pos, j);
    if (e < half) {
        return k[base + e] * cs.x - k[base + e + half] * cs.y;
    }
    return k[base + e - half] * cs.y + k[base + e] * cs.x;
{{- else}}
    let cs = angle(pos, e >> 1u);
    if ((e & 1u) == 0u) {
        return k[base + e] * cs.x - k[base + e + 1u] * cs.y;
    }
    return k[base + e - 1u] * cs.y + k[base + e] * cs.x;
{{- end}}
}

@compute @workgroup_size({{.WG}})
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
    let half = p.NRot / 2u;
    let hp = p.HeadDim / 2u;
    let qp = p.M * p.Heads * half;
    let kw = p.M * p.KVHeads * hp;
    var idx = wg_linear(wid, nwg) * {{.WG}}u + lid;
    if (idx < qp) {
        let j = idx % half;
        let th = idx / half;
        let cs = angle(p.Pos0 + th / p.Heads, j);
        let base = th * p.HeadDim;
{{- if .Neox}}
        let a = base + j;
        let b = base + j + half;
{{- else}}
        let a = base + 2u * j;
        let b = a + 1u;
{{- end}}
        let x0 = q[a];
        let x1 = q[b];
        q[a] = x0 * cs.x - x1 * cs.y;
        q[b] = x0 * cs.y + x1 * cs.x;
        return;
    }
    idx -= qp;
    let isv = idx >= kw;
    if (isv) {
        idx -= kw;
    }
    if (idx >= kw) {
        return;
    }
    let m = idx % hp;
    let th = idx / hp; // token * KVHeads + head
    let h = th % p.KVHeads;
    let i = th / p.KVHeads;
{{- if .Ring}}
    let dst = (h * p.Ctx + (p.Pos0 + i) % p.Ctx) * hp + m;
{{- else}}
    let dst = (h * p.Ctx + p.Pos0 + i) * hp + m;
{{- end}}
    var val: vec2<f32>;
    if (isv) {
        val = v[idx];
    } else {
        let base = th * p.HeadDim;
        val = vec2<f32>(rot_k(base, 2u * m, p.Pos0 + i), rot_k(base, 2u * m + 1u, p.Pos0 + i));
    }
{{- if .KVF16}}
    let word = f2h(val);
{{- else}}
    let word = val;
{{- end}}
    if (isv) {
        v_cache[dst] = word;
    } else {
        k_cache[dst] = word;
    }
}
{{- end}}
