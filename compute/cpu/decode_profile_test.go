package cpu

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/webgguf/webgguf/compute"
	"github.com/webgguf/webgguf/gen"
	"github.com/webgguf/webgguf/gguf"
	"github.com/webgguf/webgguf/model"
)

// BenchmarkDecodeProfile runs decode steps of a real model on one thread and
// reports the CPU time per token of each kind of node (matrix products by
// weight format and output width, attention, norms, …), so that the
// browser fallback's decode time can be attributed under wasm:
//
//	GOOS=js GOARCH=wasm PATH=$PATH:$(go env GOROOT)/lib/wasm \
//	  WEBGGUF_PROFILE_MODEL=/tmp/bench-100m-q4_k_m.gguf \
//	  go test -run '^$' -bench DecodeProfile -benchtime 16x ./compute/cpu
//
// WEBGGUF_PROFILE_MODEL names a GGUF file; if it does not exist, the
// browser bench's ~100M llama (scripts/bench genArgs) is generated there
// first (do that natively: it takes a while under wasm). Without it the
// benchmark generates a small llama so that it always has something to
// measure. Steps run at depth WEBGGUF_PROFILE_DEPTH (default 160, about
// the browser bench's mid-decode depth) over a cache of that depth;
// WEBGGUF_PROFILE_TOKENS > 1 profiles a prefill step of that many tokens
// instead (after WEBGGUF_PROFILE_DEPTH positions; set it to 0 for a
// prompt).
func BenchmarkDecodeProfile(b *testing.B) {
	c := gen.Config{Arch: "llama", NEmbd: 768, NLayer: 12, NHead: 12, NHeadKV: 4, NFF: 2048, Ctx: 2048,
		RopeTheta: 10000, NormEps: 1e-5, Tied: true, Type: "q4_k_m", Seed: 1, Vocab: "../../testdata/models/vocab-llama-spm.gguf"}
	path := os.Getenv("WEBGGUF_PROFILE_MODEL")
	if path == "" {
		path = filepath.Join(b.TempDir(), "profile.gguf")
		c.NEmbd, c.NLayer, c.NHead, c.NHeadKV, c.NFF = 256, 4, 4, 2, 768
	}
	if _, err := os.Stat(path); err != nil {
		if err := gen.GenerateFile(path, c); err != nil {
			b.Fatal(err)
		}
	}
	depth := 160
	if v := os.Getenv("WEBGGUF_PROFILE_DEPTH"); v != "" {
		if _, err := fmt.Sscan(v, &depth); err != nil {
			b.Fatal(err)
		}
	}
	f, err := gguf.OpenPath(path)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	tokens := 1
	if v := os.Getenv("WEBGGUF_PROFILE_TOKENS"); v != "" {
		if _, err := fmt.Sscan(v, &tokens); err != nil || tokens < 1 {
			b.Fatalf("WEBGGUF_PROFILE_TOKENS=%q", v)
		}
	}
	p := compileDecode(b, f, depth+tokens, tokens)
	prof := map[string]time.Duration{}
	ctx := context.Background()
	s := compute.Step{Pos0: depth, Tokens: make([]int32, tokens), OutRows: []int32{int32(tokens - 1)}}
	for i := range s.Tokens {
		s.Tokens[i] = int32(1 + i%100)
	}
	if err := p.Run(ctx, s, p.argmaxRow); err != nil { // warm-up
		b.Fatal(err)
	}
	b.ResetTimer()
	for range b.N {
		for _, n := range p.g.Nodes {
			t0 := cpuNow()
			p.exec(n, s)
			prof[nodeKind(n)] += cpuNow() - t0
		}
		t0 := cpuNow()
		best := 0
		for i, v := range p.act(p.g.Logits, 1) {
			if v > p.argmaxRow[best] {
				best = i
			}
		}
		_ = best
		prof["argmax"] += cpuNow() - t0
	}
	b.StopTimer()
	type row struct {
		k string
		d time.Duration
	}
	var rows []row
	var total time.Duration
	for k, d := range prof {
		rows = append(rows, row{k, d})
		total += d
	}
	sort.Slice(rows, func(i, j int) bool { return rows[i].d > rows[j].d })
	var sb strings.Builder
	fmt.Fprintf(&sb, "per step of %d tokens (ms), depth %d, %s:\n", tokens, depth, filepath.Base(path))
	for _, r := range rows {
		ms := float64(r.d) / float64(b.N) / 1e6
		fmt.Fprintf(&sb, "  %-32s %7.2f  %4.1f%%\n", r.k, ms, 100*float64(r.d)/float64(total))
	}
	fmt.Fprintf(&sb, "  %-32s %7.2f\n", "total", float64(total)/float64(b.N)/1e6)
	fmt.Print(sb.String()) // b.Log truncates a benchmark's long log
	b.ReportMetric(float64(total)/float64(b.N)/1e6/float64(tokens), "ms/token")
}

// nodeKind names a node for the profile: matrix products by weight format
// and shape (the output projection is the one with the widest output).
func nodeKind(n *compute.Node) string {
	if n.Op == compute.OpMatMul {
		w := n.Src[0]
		return fmt.Sprintf("matmul %s %dx%d", w.Type, w.Ne[0], w.Ne[1])
	}
	return n.Op.String()
}

// compileDecode loads f's model on a one-thread backend and compiles its
// graph for steps of up to tokens tokens with a cache of nCtx positions.
func compileDecode(b testing.TB, f *gguf.File, nCtx, tokens int) *program {
	m, err := model.Load(f)
	if err != nil {
		b.Fatal(err)
	}
	kv := model.NewKVCache(m.Config(), nCtx, 1)
	g := compute.NewGraph(tokens, 1)
	if err := m.Forward(g, kv); err != nil {
		b.Fatal(err)
	}
	be := New(1)
	buf := make([]byte, 1<<20)
	for _, w := range m.Weights() {
		ti, ok := f.Tensor(w.Name)
		if !ok {
			b.Fatalf("tensor %s missing", w.Name)
		}
		err := be.LoadWeight(w, ti.Size, func(fn func(off int64, chunk []byte) error) error {
			return f.StreamTensor(ti, buf, fn)
		})
		if err != nil {
			b.Fatal(err)
		}
	}
	for i := range kv.K {
		if err := be.AllocCache(kv.K[i]); err != nil {
			b.Fatal(err)
		}
		if err := be.AllocCache(kv.V[i]); err != nil {
			b.Fatal(err)
		}
	}
	prog, err := be.Compile(g)
	if err != nil {
		b.Fatal(err)
	}
	return prog.(*program)
}
