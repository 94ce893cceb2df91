package engine_test

import (
	"context"
	"errors"
	"testing"

	"github.com/webgguf/webgguf/engine"
	"github.com/webgguf/webgguf/engine/enginetest"
)

// TestEmbeddingsMatchLlamaCpp judges the embedding fixtures (tiny-bert-f16)
// by the fixtures' rule on the CPU backend.
func TestEmbeddingsMatchLlamaCpp(t *testing.T) { enginetest.Embeddings(t, nil) }

// TestEmbeddingModeErrors checks that each kind of model refuses the other
// kind's calls with a *engine.ModeError.
func TestEmbeddingModeErrors(t *testing.T) {
	ctx := context.Background()
	var me *engine.ModeError
	bert := loadFixture(t, "tiny-bert-f16", engine.Options{})
	if _, err := bert.Eval(ctx, []int32{1, 2}, engine.LogitsLast); !errors.As(err, &me) || me.Want != "logits" {
		t.Errorf("bert Eval: %v, want a ModeError", err)
	}
	if err := bert.Generate(ctx, []int32{1}, 4, engine.Greedy{}, func(int32) bool { return true }); !errors.As(err, &me) {
		t.Errorf("bert Generate: %v, want a ModeError", err)
	}
	if _, err := bert.EmbedIDs(ctx, nil); err == nil {
		t.Error("EmbedIDs(nil): no error")
	}
	if _, err := bert.EmbedIDs(ctx, make([]int32, bert.NCtx()+1)); err == nil {
		t.Error("EmbedIDs past the context: no error")
	}
	llama := loadFixture(t, "tiny-llama-q8_0", engine.Options{NCtx: 64})
	if _, err := llama.EmbedIDs(ctx, []int32{1, 2}); !errors.As(err, &me) || me.Want != "embeddings" {
		t.Errorf("llama EmbedIDs: %v, want a ModeError", err)
	}
}
