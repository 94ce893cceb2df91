//go:build linux && amd64

package gguf

import (
	"bytes"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/ebitengine/purego"
)

// ggmlBaseLib is llama.cpp's libggml-base as shipped (prebuilt, x86-64
// baseline build) inside node-llama-cpp, which scripts/oracle installs.
var ggmlBaseLib = filepath.Join("..", "scripts", "oracle", "node_modules", "@node-llama-cpp", "linux-x64", "bins", "linux-x64", "libggml-base.so")

// ggmlQuantizeChunk binds ggml_quantize_chunk, the function llama-quantize
// calls for every tensor. It skips the test only when the oracle is not
// installed outside CI; in CI a missing oracle is a failure.
func ggmlQuantizeChunk(t *testing.T) func(typ uint32, src *float32, dst *byte, start, nrows, nPerRow int64, imatrix *float32) uintptr {
	t.Helper()
	if _, err := os.Stat(ggmlBaseLib); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("llama.cpp oracle library missing (run npm ci in scripts/oracle): %v", err)
		}
		t.Skipf("llama.cpp oracle library not installed (npm ci in scripts/oracle): %v", err)
	}
	lib, err := purego.Dlopen(ggmlBaseLib, purego.RTLD_NOW|purego.RTLD_LOCAL)
	if err != nil {
		t.Fatalf("dlopen %s: %v", ggmlBaseLib, err)
	}
	var fn func(typ uint32, src *float32, dst *byte, start, nrows, nPerRow int64, imatrix *float32) uintptr
	purego.RegisterLibFunc(&fn, lib, "ggml_quantize_chunk")
	return fn
}

// quantTestData makes rows of float32 with the shapes that stress a
// quantizer: gaussian weights, heavy outliers, a constant block, an all-zero
// block, tiny magnitudes, positive-only and negative-only blocks.
func quantTestData(rng *rand.Rand, nrows, nPerRow int) []float32 {
	x := make([]float32, nrows*nPerRow)
	for i := range x {
		x[i] = float32(rng.NormFloat64() * 0.05)
	}
	if len(x) >= 2048 {
		for i := 0; i < 32; i++ {
			x[rng.IntN(len(x))] *= 40 // outliers
		}
		for i := 256; i < 512; i++ {
			x[i] = 0.25 // constant
		}
		for i := 512; i < 768; i++ {
			x[i] = 0 // all zero
		}
		for i := 768; i < 1024; i++ {
			x[i] = float32(rng.NormFloat64() * 1e-6) // tiny
		}
		for i := 1024; i < 1280; i++ {
			x[i] = float32(math.Abs(rng.NormFloat64())) // positive only
		}
		for i := 1280; i < 1536; i++ {
			x[i] = -float32(rng.Float64() * 3) // negative only
		}
		for i := 1536; i < 1792; i++ {
			x[i] = float32(rng.NormFloat64() * 1e4) // large
		}
		for i := 1792; i < 2048; i++ {
			x[i] = float32(rng.NormFloat64() * 1e-9) // f16 scale underflows
		}
	}
	return x
}

// TestQuantizeMatchesGGML quantizes the same float32 rows with our
// quantizers and with llama.cpp's own ggml_quantize_chunk (no importance
// matrix, as llama-quantize without --imatrix) and requires identical bytes.
func TestQuantizeMatchesGGML(t *testing.T) {
	quantizeChunk := ggmlQuantizeChunk(t)
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 2))
	const nrows, nPerRow = 32, 4096
	for typ := range quantizers {
		if typ == TypeF32 || typ == TypeI2_S {
			continue // ggml_quantize_chunk takes neither f32 nor BitNet's I2_S (not an upstream type)
		}
		x := quantTestData(rng, nrows, nPerRow)
		ours, err := Quantize(typ, x)
		if err != nil {
			t.Fatalf("%s: %v", typ, err)
		}
		theirs := make([]byte, len(ours))
		n := quantizeChunk(uint32(typ), &x[0], &theirs[0], 0, nrows, nPerRow, nil)
		if int(n) != len(ours) {
			t.Fatalf("%s: ggml wrote %d bytes, we %d", typ, n, len(ours))
		}
		if !bytes.Equal(ours, theirs) {
			bs := typ.TypeSize()
			bad, first := 0, -1
			for b := 0; b < len(ours)/bs; b++ {
				if !bytes.Equal(ours[b*bs:(b+1)*bs], theirs[b*bs:(b+1)*bs]) {
					bad++
					if first < 0 {
						first = b
					}
				}
			}
			t.Errorf("%s: %d of %d blocks differ from ggml (first: block %d)\nours   %x\nggml   %x", typ, bad, len(ours)/bs, first,
				ours[first*bs:(first+1)*bs], theirs[first*bs:(first+1)*bs])
		}
	}
}
