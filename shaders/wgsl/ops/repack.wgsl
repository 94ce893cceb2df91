// In-place rewrite of a weight from ggml block order to the packed layout
// (pack.go), run once at load. A packed chunk has the size and place of the
// ggml chunk it comes from, so one workgroup per chunk copies the chunk's
// words to workgroup memory, waits, and writes them back permuted: no
// workgroup touches another's bytes, and no thread needs a private array.
struct Params {
    chunks: u32,
    pad0: u32,
    pad1: u32,
    pad2: u32,
}

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read_write> w: array<u32>;

const WG: u32 = {{.WG}}u;
const CW: u32 = {{.ChunkWords}}u; // words per chunk

var<workgroup> a: array<u32, CW>;

{{.PackSrc}}
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
