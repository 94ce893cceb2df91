package engine_test

import (
	"testing"

	"github.com/webgguf/webgguf/engine/enginetest"
)

// TestFusedWeightViews runs the fused-weights judgement on the CPU: a
// model whose q, k, v and gate, up are fused tensors, loaded through
// views, computes the unfused model's logits bit for bit.
func TestFusedWeightViews(t *testing.T) { enginetest.FusedViews(t, nil, nil) }
