// In-place rewrite of a weight from ggml block order to the packed layout
// (pack.go), run once at load. A packed chunk has the size and place of the
// ggml chunk it comes from, so one workgroup per chunk copies the chunk's
// words to workgroup memory, waits, and writes them back permuted: no
// workgroup touches another's bytes, and no thread needs a private array.
struct Params {
    chunks: u32,
    per_row: u32,   // Ragged: chunks a row, the first of 4 blocks
    row_bytes: u32, // Ragged: bytes a row
    pad2: u32,
}

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read_write> w: array<u32>;

const WG: u32 = {{.WG}}u;
const CW: u32 = {{.ChunkWords}}u; // words per chunk

var<workgroup> a: array<u32, CW>;

{{.PackSrc}}
{{- if .Ragged}}
// Ragged rows (shaders.Ragged): chunk c is chunk c % per_row of its row, of
// 4 blocks when first, else 8, with its lead l (scales before its quants)
// from its start; its words move through a[] byte by byte (src_byte).
@compute @workgroup_size({{.WG}})
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
    let c = wg_linear(wid, nwg);
    if (c >= p.chunks) {
        return;
    }
    let ci = c % p.per_row;
    var off = (c / p.per_row) * p.row_bytes;
    var n = 4u;
    if (ci > 0u) {
        off += TAILB + (ci - 1u) * CHB;
        n = 8u;
    }
    let l = (16u - (off & 15u)) & 15u;
    let base = off >> 2u; // rows and chunks start on 8-byte offsets
    let cw = n * TS / 4u;
    for (var i = lid; i < cw; i += WG) {
        a[i] = w[base + i];
    }
    workgroupBarrier();
    for (var i = lid; i < cw; i += WG) {
        var v = 0u;
        for (var f = 0u; f < 4u; f++) {
            let s = src_byte(4u * i + f, n, l);
            v |= ((a[s >> 2u] >> ((s & 3u) * 8u)) & 255u) << (f * 8u);
        }
        w[base + i] = v;
    }
}
{{- else}}
@compute @workgroup_size({{.WG}})
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
    let c = wg_linear(wid, nwg);
    if (c >= p.chunks) {
        return; // the whole workgroup leaves: no barrier is skipped by part of it
    }
    let base = c * CW;
    for (var i = lid; i < CW; i += WG) {
        a[i] = w[base + i];
    }
    workgroupBarrier();
    // Field f of word i is packed field (32/FB)·i + f; src_field names its
    // ggml field (FB bits: bytes, or q6_K's bit pairs).
    for (var i = lid; i < CW; i += WG) {
        var v = 0u;
        for (var f = 0u; f < 32u / FB; f++) {
            let s = src_field((32u / FB) * i + f) * FB;
            v |= ((a[s >> 5u] >> (s & 31u)) & ((1u << FB) - 1u)) << (f * FB);
        }
        w[base + i] = v;
    }
}
{{- end}}
