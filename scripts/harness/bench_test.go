package harness

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"
)

type latency struct {
	N                   int
	P50, P99, Mean, Max float64
	PayloadMBps         float64
}

// BenchmarkWorker measures round trips through the real engine worker in
// headless Chromium (pages/bench.js): small-message latency p50/p99 and
// 1 MiB echo throughput (one and four calls in flight), next to a plain-JS
// echo worker. Not a test: run with
//
//	go test -run '^$' -bench Worker -benchtime 1x ./scripts/harness
func BenchmarkWorker(b *testing.B) {
	e := setup(b)
	var res struct {
		Small, Big1, Big4, Plain, PlainBig latency
		Pool                               struct{ Hits, Misses int }
		SmallGC                            struct {
			GCs                 int
			PauseMs, HeapSysMiB float64
		}
	}
	for range b.N {
		r, err := e.browser.RunPage(context.Background(), e.srv.URL+"/scripts/harness/pages/bench.html", 5*time.Minute)
		if err != nil {
			b.Fatalf("%v\n%s", err, strings.Join(r.Console, "\n"))
		}
		if err := json.Unmarshal(r.Value, &res); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(res.Small.P50*1000, "small-p50-µs")
	b.ReportMetric(res.Small.P99*1000, "small-p99-µs")
	b.ReportMetric(res.Plain.P50*1000, "plainjs-p50-µs")
	b.ReportMetric(res.Plain.P99*1000, "plainjs-p99-µs")
	b.ReportMetric(res.Big1.P50, "1MiB-p50-ms")
	b.ReportMetric(res.Big1.P99, "1MiB-p99-ms")
	b.ReportMetric(res.Big1.PayloadMBps, "1MiB-MB/s")
	b.ReportMetric(res.Big4.PayloadMBps, "1MiB-x4-MB/s")
	b.ReportMetric(res.PlainBig.P50, "plainjs-1MiB-p50-ms")
	b.ReportMetric(float64(res.SmallGC.GCs), "GCs/small-run")
	b.Logf("small GC %+v\nsmall %+v\nplain %+v\n1MiB %+v\n1MiB x4 %+v\nplain 1MiB %+v\npage pool %+v", res.SmallGC, res.Small, res.Plain, res.Big1, res.Big4, res.PlainBig, res.Pool)
}
