package gen

import (
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"testing"
	"time"

	"github.com/webgguf/webgguf/engine/reference"
	"github.com/webgguf/webgguf/gguf"
	"github.com/webgguf/webgguf/tokenizer"
)

// logitTol is the largest |llama.cpp − float64| logit difference accepted
// on the exact top-5 tokens. llama.cpp keeps the KV cache in f16 and, for
// quantized weights, rounds activations to 8 bits before the products, so
// it is never exact: measured deviations on these models are ≤ 0.011 for
// f32/f16/bf16 and ≤ 0.144 for the quantized types (all 51 pairs, seed 7).
// A misread layout or a wrong scale gives deviations of the order of the
// logits themselves (≈ 2).
func logitTol(typ string) float64 {
	switch typ {
	case "f32", "f16", "bf16":
		return 0.03
	}
	return 0.3
}

// llamaCppCases lists the (architecture, file type) pairs to check: every
// file type at least once (rotating over the architectures), plus f32 and
// mixed (one tensor of each quantizer) on every architecture. Set
// WEBGGUF_LLAMACPP_FULL=1 for the full cross product (68 models).
func llamaCppCases() [][2]string {
	archs := []string{"llama", "qwen2", "qwen3", "gemma3", "gemma2", "smollm3"}
	var cases [][2]string
	full := os.Getenv("WEBGGUF_LLAMACPP_FULL") != ""
	for i, typ := range Types() {
		for j, arch := range archs {
			if full || typ == "f32" || typ == "mixed" || i%len(archs) == j {
				cases = append(cases, [2]string{arch, typ})
			}
		}
	}
	return cases
}

// TestLlamaCppLoadsGenerated is the proof that llama.cpp accepts our
// writer, generator and quantizers: for each architecture and file type it
// generates a small model, loads it in llama.cpp (node-llama-cpp), greedily
// generates tokens, and compares llama.cpp's next-token logits with an
// exact float64 forward pass over our own dequantized weights
// (engine/reference, itself proven against llama.cpp's float64 fixtures).
// The gemma3 models (smallConfig) have 6 layers and a window of 3 on the
// first 5, shorter than the 6-token prompt; the gemma2 ones a window of 3
// on layers 0 and 2 and soft-caps that bite; the smollm3 ones no RoPE on
// layer 3.
func TestLlamaCppLoadsGenerated(t *testing.T) {
	o := startOracle(t)
	dir := t.TempDir()
	prompt := []int{1, 450, 3996, 17, 1701, 310}
	for _, cs := range llamaCppCases() {
		arch, typ := cs[0], cs[1]
		start := time.Now()
		c := smallConfig(arch, typ)
		c.Tied = arch != "qwen2" // qwen2 checks the separate output.weight path
		path := filepath.Join(dir, arch+"-"+typ+".gguf")
		if err := GenerateFile(path, c); err != nil {
			t.Fatalf("%s %s: %v", arch, typ, err)
		}
		var load struct {
			Model  int `json:"model"`
			NVocab int `json:"nVocab"`
		}
		if err := o.call(map[string]any{"op": "load", "path": path, "contextSize": 64}, &load); err != nil {
			t.Errorf("%s %s: llama.cpp did not load the model: %v", arch, typ, err)
			continue
		}
		var gen struct{ IDs []int }
		if err := o.call(map[string]any{"op": "generate", "model": load.Model, "ids": prompt, "n": 4}, &gen); err != nil {
			t.Errorf("%s %s: generate: %v", arch, typ, err)
		}
		if len(gen.IDs) == 0 {
			t.Errorf("%s %s: llama.cpp generated no token", arch, typ)
		}
		for _, id := range gen.IDs {
			if id < 0 || id >= load.NVocab {
				t.Errorf("%s %s: generated id %d outside the vocab", arch, typ, id)
			}
		}
		var lg struct{ Logits [][]float64 }
		if err := o.call(map[string]any{"op": "logits", "model": load.Model, "ids": prompt}, &lg); err != nil || len(lg.Logits) != 1 {
			t.Errorf("%s %s: logits: %v", arch, typ, err)
			continue
		}
		compareLogits(t, arch+" "+typ, path, prompt, lg.Logits[0], logitTol(typ))
		o.call(map[string]any{"op": "unload", "model": load.Model}, &struct{}{})
		t.Logf("%s %s: generated %v in %v", arch, typ, gen.IDs, time.Since(start).Round(time.Millisecond))
	}
}

// TestLlamaCppBitNet: small bitnet models in TQ2_0 and TQ1_0 (sub-norms,
// ternary projections, token_embd q6_K) load in llama.cpp, which generates
// from them, and its logits match the float64 forward pass over our
// dequantized weights.
func TestLlamaCppBitNet(t *testing.T) {
	o := startOracle(t)
	dir := t.TempDir()
	prompt := []int{1, 450, 3996, 17, 1701, 310}
	for _, typ := range []string{"tq2_0", "tq1_0"} {
		c := smallConfig("bitnet", typ)
		path := filepath.Join(dir, "bitnet-"+typ+".gguf")
		if err := GenerateFile(path, c); err != nil {
			t.Fatalf("%s: %v", typ, err)
		}
		var load struct {
			Model  int `json:"model"`
			NVocab int `json:"nVocab"`
		}
		if err := o.call(map[string]any{"op": "load", "path": path, "contextSize": 64}, &load); err != nil {
			t.Fatalf("bitnet %s: llama.cpp did not load the model: %v", typ, err)
		}
		var gen struct{ IDs []int }
		if err := o.call(map[string]any{"op": "generate", "model": load.Model, "ids": prompt, "n": 4}, &gen); err != nil || len(gen.IDs) == 0 {
			t.Errorf("bitnet %s: generate: %v %v", typ, gen.IDs, err)
		}
		var lg struct{ Logits [][]float64 }
		if err := o.call(map[string]any{"op": "logits", "model": load.Model, "ids": prompt}, &lg); err != nil || len(lg.Logits) != 1 {
			t.Fatalf("bitnet %s: logits: %v", typ, err)
		}
		compareLogits(t, "bitnet "+typ, path, prompt, lg.Logits[0], logitTol(typ))
		o.call(map[string]any{"op": "unload", "model": load.Model}, &struct{}{})
	}
}

func compareLogits(t *testing.T, label, path string, prompt []int, got []float64, tol float64) {
	t.Helper()
	f, err := gguf.OpenPath(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	ids := make([]int32, len(prompt))
	for i, id := range prompt {
		ids[i] = int32(id)
	}
	rows, err := reference.Logits(f, ids)
	if err != nil {
		t.Fatalf("%s: float64 reference: %v", label, err)
	}
	want := rows[len(rows)-1]
	if len(got) != len(want) {
		t.Fatalf("%s: %d logits from llama.cpp, %d exact", label, len(got), len(want))
	}
	order := make([]int, len(want))
	for i := range order {
		order[i] = i
	}
	sort.Slice(order, func(a, b int) bool { return want[order[a]] > want[order[b]] })
	var maxDev float64
	for _, id := range order[:5] {
		maxDev = math.Max(maxDev, math.Abs(got[id]-want[id]))
	}
	best := 0
	for i := range got {
		if got[i] > got[best] {
			best = i
		}
	}
	margin := want[order[0]] - want[order[1]]
	t.Logf("%-12s max |llama.cpp - exact| on top-5 %.5f (tol %.3g), top-1 exact %d llama.cpp %d, margin %.3f", label, maxDev, tol, order[0], best, margin)
	if maxDev > tol {
		t.Errorf("%s: llama.cpp logits deviate %.4f from the float64 forward pass (tol %.3g)", label, maxDev, tol)
	}
	if margin > 2*tol && best != order[0] {
		t.Errorf("%s: llama.cpp's top-1 %d differs from exact %d (margin %.3f)", label, best, order[0], margin)
	}
}

// TestLlamaCppPaddedVocab: a model whose embedding has more rows than the
// tokenizer has tokens (Qwen2.5: 151936 vs 151669 here) is padded with
// [PAD<id>] tokens; llama.cpp must accept the padded vocab, with the real
// byte-level BPE tokenizer, and compute the same logits.
func TestLlamaCppPaddedVocab(t *testing.T) {
	o := startOracle(t)
	c := Config{Arch: "qwen2", NEmbd: 64, NLayer: 1, NHead: 2, NHeadKV: 1, NFF: 128, Ctx: 256, RopeTheta: 1e6, NormEps: 1e-6,
		Tied: true, Type: "q8_0", Seed: 11, Vocab: "../testdata/models/vocab-qwen3-bpe.gguf", NVocab: 151936}
	path := filepath.Join(t.TempDir(), "padded.gguf")
	if err := GenerateFile(path, c); err != nil {
		t.Fatal(err)
	}
	var load struct {
		Model  int `json:"model"`
		NVocab int `json:"nVocab"`
	}
	if err := o.call(map[string]any{"op": "load", "path": path, "contextSize": 64}, &load); err != nil {
		t.Fatalf("llama.cpp did not load the padded model: %v", err)
	}
	if load.NVocab != 151936 {
		t.Errorf("llama.cpp sees %d tokens, want 151936", load.NVocab)
	}
	var tok struct{ IDs []int }
	if err := o.call(map[string]any{"op": "tokenize", "model": load.Model, "text": "Hello, world", "addSpecial": true, "parseSpecial": true}, &tok); err != nil || len(tok.IDs) == 0 {
		t.Fatalf("tokenize: %v %v", tok.IDs, err)
	}
	var gen struct{ IDs []int }
	if err := o.call(map[string]any{"op": "generate", "model": load.Model, "ids": tok.IDs, "n": 4}, &gen); err != nil || len(gen.IDs) == 0 {
		t.Fatalf("generate: %v %v", gen.IDs, err)
	}
	var lg struct{ Logits [][]float64 }
	if err := o.call(map[string]any{"op": "logits", "model": load.Model, "ids": tok.IDs}, &lg); err != nil || len(lg.Logits) != 1 {
		t.Fatalf("logits: %v", err)
	}
	compareLogits(t, "qwen2 padded", path, tok.IDs, lg.Logits[0], logitTol(c.Type))
}

// TestLlamaCppGemmaChat: llama.cpp loads a gemma preset's vocabulary (the
// SentencePiece vocab padded, with the turn markers as control tokens;
// padded to 32 016 rather than 262 144 tokens, which takes llama.cpp
// seconds to load), takes <end_of_turn> as end of generation, tokenizes a
// prompt rendered with the preset's chat template as our tokenizer does,
// and computes the same logits on it as the float64 reference.
func TestLlamaCppGemmaChat(t *testing.T) {
	o := startOracle(t)
	c := smallGemma(t)
	c.NVocab = 32016
	path := filepath.Join(t.TempDir(), "gemma.gguf")
	if err := GenerateFile(path, c); err != nil {
		t.Fatal(err)
	}
	f, err := gguf.OpenPath(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	tok, err := tokenizer.FromGGUF(f)
	if err != nil {
		t.Fatal(err)
	}
	text := gemmaPrompt(t, f, tok)
	ours, err := tok.Encode(text, false, true)
	if err != nil {
		t.Fatal(err)
	}
	var load struct {
		Model  int `json:"model"`
		NVocab int `json:"nVocab"`
	}
	if err := o.call(map[string]any{"op": "load", "path": path, "contextSize": 64}, &load); err != nil {
		t.Fatalf("llama.cpp did not load the model: %v", err)
	}
	if load.NVocab != c.NVocab {
		t.Errorf("llama.cpp sees %d tokens, want %d", load.NVocab, c.NVocab)
	}
	var vocab struct {
		Attrs []int `json:"attrs"`
		EOG   []int `json:"eog"`
		EOT   *int  `json:"eot"`
	}
	if err := o.call(map[string]any{"op": "vocab", "model": load.Model}, &vocab); err != nil {
		t.Fatal(err)
	}
	const attrControl = 1 << 3 // LLAMA_TOKEN_ATTR_CONTROL
	if len(vocab.Attrs) != c.NVocab || vocab.Attrs[32000]&attrControl == 0 || vocab.Attrs[32001]&attrControl == 0 {
		t.Errorf("llama.cpp: <start_of_turn>/<end_of_turn> not control tokens")
	}
	if !slices.Contains(vocab.EOG, 32001) || slices.Contains(vocab.EOG, 32000) || vocab.EOT == nil || *vocab.EOT != 32001 {
		t.Errorf("llama.cpp: end-of-generation tokens %v, eot %v; want <end_of_turn> = 32001", vocab.EOG, vocab.EOT)
	}
	var lt struct{ IDs []int }
	if err := o.call(map[string]any{"op": "tokenize", "model": load.Model, "text": text, "addSpecial": false, "parseSpecial": true}, &lt); err != nil {
		t.Fatal(err)
	}
	ids := make([]int, len(ours))
	for i, id := range ours {
		ids[i] = int(id)
	}
	if !slices.Equal(lt.IDs, ids) {
		t.Errorf("tokens of the chat prompt: llama.cpp %v, ours %v", lt.IDs, ids)
	}
	var lg struct{ Logits [][]float64 }
	if err := o.call(map[string]any{"op": "logits", "model": load.Model, "ids": ids}, &lg); err != nil || len(lg.Logits) != 1 {
		t.Fatalf("logits: %v", err)
	}
	compareLogits(t, "gemma3 chat", path, ids, lg.Logits[0], logitTol(c.Type))
}
