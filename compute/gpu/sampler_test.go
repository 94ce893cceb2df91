package gpu_test

import (
	"context"
	"errors"
	"path/filepath"
	"sort"
	"testing"

	"github.com/webgguf/webgguf/compute"
	"github.com/webgguf/webgguf/compute/gpu"
	"github.com/webgguf/webgguf/engine/enginetest"
	"github.com/webgguf/webgguf/gguf"
	"github.com/webgguf/webgguf/model"
)

// compileDecode loads fixture name onto a fresh backend and compiles its
// single-token graph directly, to reach the GPU samplers.
func compileDecode(t *testing.T, name string, nCtx int) (*gpu.Backend, gpu.Sampler, model.Config) {
	t.Helper()
	f, err := gguf.OpenPath(filepath.Join(enginetest.Testdata(), "models", name+".gguf"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	m, err := model.Load(f)
	if err != nil {
		t.Fatal(err)
	}
	cfg := m.Config()
	kv := model.NewKVCache(cfg, nCtx, 1)
	g := compute.NewGraph(1, 1)
	if err := m.Forward(g, kv); err != nil {
		t.Fatal(err)
	}
	be := gpu.New(device(t))
	t.Cleanup(func() { be.Close() })
	buf := make([]byte, 1<<20)
	for _, w := range m.Weights() {
		ti, _ := f.Tensor(w.Name)
		if err := be.LoadWeight(w, ti.Size, func(fn func(int64, []byte) error) error { return f.StreamTensor(ti, buf, fn) }); err != nil {
			t.Fatal(err)
		}
	}
	for i := range kv.K {
		if err := be.AllocCache(kv.K[i]); err != nil {
			t.Fatal(err)
		}
		if err := be.AllocCache(kv.V[i]); err != nil {
			t.Fatal(err)
		}
	}
	p, err := be.Compile(g)
	if err != nil {
		t.Fatal(err)
	}
	return be, p.(gpu.Sampler), cfg
}

// TestGPUSamplersAndNoCreationInLoop decodes a prompt token by token and,
// at every position, checks that the GPU argmax equals the argmax of the
// read-back logits and the GPU top-k their sorted order, and that no GPU
// object is created by any step (webgpu Stats.Created stays put).
func TestGPUSamplersAndNoCreationInLoop(t *testing.T) {
	llama, _ := enginetest.Refs(t, "tiny-llama-q8_0")
	ids := llama.Prompts[1].IDs
	be, p, cfg := compileDecode(t, "tiny-llama-q8_0", 64)
	ctx := context.Background()
	created := be.Device().Stats().Created
	submits := be.Device().Stats().Submits
	logits := make([]float32, cfg.NVocab)
	topIDs, topVals := make([]int32, 8), make([]float32, 8)
	for pos, id := range ids {
		s := compute.Step{Pos0: pos, Tokens: []int32{id}, OutRows: []int32{0}}
		if err := p.Run(ctx, s, logits); err != nil {
			t.Fatal(err)
		}
		// Re-running the same step rewrites the same cache position, so
		// the samplers see the same logits.
		tok, err := p.RunArgmax(ctx, s)
		if err != nil {
			t.Fatal(err)
		}
		if want := argmax(logits); tok != int32(want) {
			t.Errorf("pos %d: GPU argmax %d, argmax of read-back logits %d", pos, tok, want)
		}
		if err := p.RunTopK(ctx, s, topIDs, topVals); err != nil {
			t.Fatal(err)
		}
		order := make([]int, len(logits))
		for i := range order {
			order[i] = i
		}
		sort.SliceStable(order, func(a, b int) bool { return logits[order[a]] > logits[order[b]] })
		for i := range topIDs {
			if topIDs[i] != int32(order[i]) || topVals[i] != logits[order[i]] {
				t.Errorf("pos %d rank %d: GPU top-k (%d, %g), read-back logits (%d, %g)", pos, i, topIDs[i], topVals[i], order[i], logits[order[i]])
			}
		}
	}
	st := be.Device().Stats()
	if st.Created != created {
		t.Errorf("decode steps created %d GPU objects", st.Created-created)
	}
	if got, want := st.Submits-submits, uint64(3*len(ids)); got != want {
		t.Errorf("%d submits for %d steps, want one per step", got, want)
	}
	if p.Dispatches() < 1 || be.Stats().Steps != int64(3*len(ids)) {
		t.Errorf("stats: %d dispatches per step, %d steps", p.Dispatches(), be.Stats().Steps)
	}
	t.Logf("%d dispatches per decode step (%d layers)", p.Dispatches(), cfg.NLayer)
	// Fusions keep a llama layer at 7 kernels: matvec_qkv with the
	// attention norm, rope_kv, attn_decode, attn_merge, O matvec +
	// residual, SwiGLU matvec with the FFN norm, down matvec + residual.
	// The head adds embedding, row select and output with the final norm.
	if max := 7*cfg.NLayer + 3; p.Dispatches() > max {
		t.Errorf("%d dispatches per decode step, want at most %d", p.Dispatches(), max)
	}
	// A sampling step needs exactly one output row.
	if _, err := p.RunArgmax(ctx, compute.Step{Tokens: []int32{1}}); !errors.Is(err, compute.ErrBadStep) {
		t.Errorf("argmax without output row: %v", err)
	}
}

func argmax(x []float32) int {
	best := 0
	for i, v := range x {
		if v > x[best] {
			best = i
		}
	}
	return best
}

// The encode-ahead top-k sequence (SubmitTopK step i, PrepareTopK step
// i+1, ReadTopK step i) returns what RunTopK does step by step, whether
// the prepared encoding is used or (another tape variant: the split
// attention of positions past DefaultDecodeAttention.ShortMax) dropped,
// and whether a logits step runs between the prepare and the submit.
func TestTopKEncodeAhead(t *testing.T) {
	llama, _ := enginetest.Refs(t, "tiny-llama-q8_0")
	ids := llama.Prompts[1].IDs
	if len(ids) < 8 {
		t.Fatalf("prompt of %d tokens: the test needs 8", len(ids))
	}
	be, p, cfg := compileDecode(t, "tiny-llama-q8_0", 256) // 2 splits: both attention variants
	ctx := context.Background()
	step := func(pos int) compute.Step {
		return compute.Step{Pos0: pos, Tokens: []int32{ids[pos]}, OutRows: []int32{0}}
	}
	const k = 8
	want := make([][]int32, len(ids))
	for pos := range ids {
		want[pos] = make([]int32, k)
		if err := p.RunTopK(ctx, step(pos), want[pos], make([]float32, k)); err != nil {
			t.Fatal(err)
		}
	}
	tp := p.(compute.TopKPipeliner)
	got, vals := make([]int32, k), make([]float32, k)
	submits := be.Device().Stats().Submits
	for pos := range ids {
		if err := tp.SubmitTopK(ctx, step(pos)); err != nil {
			t.Fatal(err)
		}
		if pos+1 < len(ids) {
			next := step(pos + 1)
			if pos == 3 { // a prepared tape that does not match the next step
				next = compute.Step{Pos0: 200, Tokens: []int32{1}, OutRows: []int32{0}}
			}
			if err := tp.PrepareTopK(ctx, next); err != nil {
				t.Fatal(err)
			}
		}
		if err := tp.ReadTopK(ctx, got, vals); err != nil {
			t.Fatal(err)
		}
		if pos == 5 { // rewrites the same cache row as the prepared step will
			if err := p.Run(ctx, step(pos+1), make([]float32, cfg.NVocab)); err != nil {
				t.Fatal(err)
			}
			submits++
		}
		for i := range got {
			if got[i] != want[pos][i] {
				t.Fatalf("pos %d rank %d: encoded ahead %d, RunTopK %d", pos, i, got[i], want[pos][i])
			}
		}
	}
	if n := be.Device().Stats().Submits - submits; n != uint64(len(ids)) {
		t.Errorf("%d submits for %d steps", n, len(ids))
	}
}
