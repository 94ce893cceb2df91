package gpu_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/webgguf/webgguf/compute"
	"github.com/webgguf/webgguf/compute/gpu"
	"github.com/webgguf/webgguf/engine/enginetest"
	"github.com/webgguf/webgguf/engine/reference"
	"github.com/webgguf/webgguf/gguf"
	"github.com/webgguf/webgguf/internal/longtest"
	"github.com/webgguf/webgguf/model/modeltest"
	"github.com/webgguf/webgguf/webgpu"
)

var (
	devOnce sync.Once
	dev     *webgpu.Device
	devErr  error
)

// device opens one device for the whole test binary and fails (never
// skips) without an adapter: CI installs lavapipe.
func device(t testing.TB) *webgpu.Device {
	t.Helper()
	devOnce.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		dev, devErr = webgpu.Open(ctx, webgpu.Options{})
	})
	if devErr != nil {
		t.Fatalf("webgpu.Open: %v (natively this needs a Vulkan driver: apt-get install mesa-vulkan-drivers)", devErr)
	}
	return dev
}

// newBackend is the conformance suite's constructor for this backend: all
// backends share one device, as an application's engines would.
func newBackend(t testing.TB) compute.Backend { return gpu.New(device(t)) }

// TestFixturesMatchLlamaCpp judges every fixture model and prompt by
// refcheck's rule against llama.cpp's fixtures (teacher-forced logits vs the
// float64 reference with llama.cpp's own tolerance; greedy continuations
// vs llama.cpp's), with prefill micro-batches of 64.
func TestFixturesMatchLlamaCpp(t *testing.T) {
	enginetest.Fixtures(t, newBackend, nil, 0)
}

// TestEmbeddingsMatchLlamaCpp judges the embedding fixtures (tiny-bert-f16:
// learned positions, LayerNorm with bias, non-causal attention, mean
// pooling) by the fixtures' rule.
func TestEmbeddingsMatchLlamaCpp(t *testing.T) { enginetest.Embeddings(t, newBackend) }

// TestFixturesSmallMicroBatch runs the same judgement with micro-batches of
// 7 tokens, so every prompt spans several prefill steps: llama, and
// gemma3's sliding windows over ring caches; qwen3, gemma2 and phi3 too
// with the long tag.
func TestFixturesSmallMicroBatch(t *testing.T) {
	models := []string{"tiny-llama-q8_0", "tiny-gemma3-q4_k_m"}
	if longtest.Enabled {
		models = append(models, "tiny-qwen3-q8_0", "tiny-gemma2-q4_0", "tiny-phi3-q8_0")
	}
	enginetest.Fixtures(t, newBackend, models, 7)
}

// TestShapesMatchFloat64Reference compares every logit with the float64
// reference on generated models: GQA 1, 2, 4, 8; head_dim 64 and 128;
// n_embd not a multiple of 256; biases, q/k norms, rope_freqs, partial rotary.
func TestShapesMatchFloat64Reference(t *testing.T) {
	enginetest.Shapes(t, newBackend)
}

// referenceCase writes the generated model s and returns it, n token ids
// ((j*mul + add) mod the vocabulary) and the float64 reference's logits
// after each of them.
func referenceCase(t *testing.T, s modeltest.Spec, n, mul, add int) (*gguf.File, []int32, [][]float64) {
	t.Helper()
	f, err := modeltest.Open(s)
	if err != nil {
		t.Fatal(err)
	}
	ids := make([]int32, n)
	for j := range ids {
		ids[j] = int32((j*mul + add) % s.NVocab)
	}
	want, err := reference.Logits(f, ids)
	if err != nil {
		t.Fatal(err)
	}
	return f, ids, want
}
