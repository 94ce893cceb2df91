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
    for (var i = lid; i < CW; i += WG) {
        var v = 0u;
        for (var b = 0u; b < 4u; b++) {
            let s = src_byte(4u * i + b);
            v |= ((a[s >> 2u] >> ((s & 3u) << 3u)) & 0xffu) << (b << 3u);
        }
        w[base + i] = v;
    }
}
