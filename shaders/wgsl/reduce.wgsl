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
