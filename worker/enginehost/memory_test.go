package enginehost

import (
	"context"
	"strings"
	"testing"

	"github.com/webgguf/webgguf/gguf"
	"github.com/webgguf/webgguf/model/modeltest"
)

// TestHugeKVPlanIsOutOfMemory: a 20 MB model whose header plans a 5 GiB
// cache at its own 4096 positions is refused with the out-of-memory kind
// under wasm32's bound (applied here natively), naming the bytes, and the
// host stays usable. (Before, the plan passed the 16 GiB default and the
// browser's CPU path died with "fatal error: out of memory", taking the
// worker with it.)
func TestHugeKVPlanIsOutOfMemory(t *testing.T) {
	hostMemoryLimit = 4<<30 - 512<<20
	defer func() { hostMemoryLimit = 0 }()
	huge, err := modeltest.Bytes(modeltest.Spec{Arch: "llama", NEmbd: 8, NLayer: 160, NFF: 8, NVocab: 32,
		NHead: 8, NHeadKV: 8, HeadDim: 128, Type: gguf.TypeF16, ContextLength: 4096, Seed: 1, Set: vocab32()})
	if err != nil {
		t.Fatal(err)
	}
	h := New()
	_, err = h.Load(context.Background(), huge, LoadOptions{NCtx: 4096, Backend: "cpu"})
	if kind(err) != KindOutOfMemory || !strings.Contains(err.Error(), "needs 5387709472 bytes") || !strings.Contains(err.Error(), "3758096384 available") {
		t.Fatalf("got %v (%s), want out-of-memory naming the bytes", err, kind(err))
	}
	if info, _ := h.Info(context.Background()); info.Loaded {
		t.Fatal("a model is loaded after the refused plan")
	}
	// The default context (contextSize 0) of a model that fits only
	// smaller is halved, with a warning.
	small, err := modeltest.Bytes(modeltest.Spec{Arch: "llama", NEmbd: 32, NLayer: 2, NFF: 32, NVocab: 32,
		NHead: 2, NHeadKV: 2, HeadDim: 64, Type: gguf.TypeF32, ContextLength: 4096, Seed: 1, Set: vocab32()})
	if err != nil {
		t.Fatal(err)
	}
	hostMemoryLimit = 6 << 20 // the f32 cache alone is 8 MiB at 4096 positions
	var warned string
	info, err := h.Load(context.Background(), small, LoadOptions{Backend: "cpu", Warn: func(m string) { warned += m }})
	if err != nil {
		t.Fatal(err)
	}
	if info.NCtx >= 4096 || !strings.Contains(warned, "4096-position context does not fit") {
		t.Errorf("n_ctx %d, warning %q; want a shrunk context and a warning", info.NCtx, warned)
	}
}

// vocab32 is a 32-token SentencePiece vocabulary for modeltest's models,
// which carry no tokenizer.
func vocab32() []gguf.KV {
	toks := []string{"<unk>", "<s>", "</s>"}
	for i := len(toks); i < 32; i++ {
		toks = append(toks, "▁"+string(rune('a'+i)))
	}
	return []gguf.KV{{Key: "tokenizer.ggml.model", Value: gguf.ValueOf("llama")}, {Key: "tokenizer.ggml.tokens", Value: gguf.ValueOf(toks)}}
}
