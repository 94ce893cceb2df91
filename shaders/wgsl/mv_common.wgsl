{{define "mv_bindings"}}
struct Params {
    K: u32,
    N: u32,
    pad0: u32,
    pad1: u32,
}

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read> w: array<{{if .Plain}}vec4<u32>{{else}}u32{{end}}>;
@group(0) @binding(2) var<storage, read> x: array<vec4<f32>>;
@group(0) @binding(3) var<storage, read_write> y: array<f32>;
{{- $b := 4}}
{{- if .SwiGLU}}
@group(0) @binding({{$b}}) var<storage, read> wu: array<{{if .Plain}}vec4<u32>{{else}}u32{{end}}>;{{$b = add $b 1}}
{{- end}}
{{- if .Bias}}
@group(0) @binding({{$b}}) var<storage, read> bias: array<f32>;{{$b = add $b 1}}
{{- end}}
{{- if .Residual}}
@group(0) @binding({{$b}}) var<storage, read> res: array<f32>;{{$b = add $b 1}}
{{- end}}

const WG: u32 = {{.WG}}u;
const ROWS: u32 = {{.Rows}}u;
const T: u32 = WG / ROWS; // threads per row

var<workgroup> red: array<f32, {{.RedSize}}>;
{{end}}

{{define "mv_epilogue"}}
    red[lid] = acc;
{{- if .SwiGLU}}
    red[WG + lid] = accu;
{{- end}}
    workgroupBarrier();
    for (var s = T / 2u; s > 0u; s >>= 1u) {
        if (t < s) {
            red[lid] += red[lid + s];
{{- if .SwiGLU}}
            red[WG + lid] += red[WG + lid + s];
{{- end}}
        }
        workgroupBarrier();
    }
    if (t == 0u && row0 + r < N) {
        let row = row0 + r;
{{- if .SwiGLU}}
        var v = silu(red[lid]) * red[WG + lid];
{{- else}}
        var v = red[lid];
{{- end}}
{{- if .Bias}}
        v += bias[row];
{{- end}}
{{- if .Residual}}
        v += res[row];
{{- end}}
        y[row] = v;
    }
{{end}}
