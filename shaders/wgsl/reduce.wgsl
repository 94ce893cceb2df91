{{define "reduce"}}
    // Tree reduction of the NACC per-thread sums; red[a * WG] ends up with total a.
    for (var a = 0u; a < NACC; a++) {
        red[a * WG + lid] = acc[a];
    }
    workgroupBarrier();
    for (var s = WG / 2u; s > 0u; s >>= 1u) {
        if (lid < s) {
            for (var a = 0u; a < NACC; a++) {
                red[a * WG + lid] += red[a * WG + lid + s];
            }
        }
        workgroupBarrier();
    }
{{- end}}

{{define "wg_maxsum"}}
// wg_max and wg_sum reduce one value per thread over the workgroup (WG
// threads, red[WG] of the same type in workgroup memory); every thread gets
// the result. The template's data is the value type: f32, or a vector whose
// lanes reduce independently (attn_decode_gqa.wgsl).
fn wg_max(lid: u32, v: {{.}}) -> {{.}} {
    red[lid] = v;
    workgroupBarrier();
    for (var s = WG / 2u; s > 0u; s >>= 1u) {
        if (lid < s) {
            red[lid] = max(red[lid], red[lid + s]);
        }
        workgroupBarrier();
    }
    let r = red[0];
    workgroupBarrier();
    return r;
}

fn wg_sum(lid: u32, v: {{.}}) -> {{.}} {
    red[lid] = v;
    workgroupBarrier();
    for (var s = WG / 2u; s > 0u; s >>= 1u) {
        if (lid < s) {
            red[lid] += red[lid + s];
        }
        workgroupBarrier();
    }
    let r = red[0];
    workgroupBarrier();
    return r;
}
{{- end}}
