package enginetest

import (
	"bytes"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/webgguf/webgguf/gguf"
)

// PoolingVariant rewrites fixture model name with <arch>.pooling_type set to
// pooling (added when absent) into dir and returns its path; rank pooling
// (4) adds a random f32 classifier head (cls: n_embd×n_embd, cls.output:
// one label, both with biases) for a bert of n_embd 96.
func PoolingVariant(t *testing.T, dir, name, arch string, pooling uint32) string {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(Testdata(), "models", name+".gguf"))
	if err != nil {
		t.Fatal(err)
	}
	f, err := gguf.Open(bytes.NewReader(raw), int64(len(raw)))
	if err != nil {
		t.Fatal(err)
	}
	kv := make([]gguf.KV, 0, len(f.KV)+1)
	set := false
	for _, p := range f.KV {
		if p.Key == arch+".pooling_type" {
			p.Value, set = gguf.ValueOf(pooling), true
		}
		kv = append(kv, p)
	}
	if !set {
		kv = append(kv, gguf.KV{Key: arch + ".pooling_type", Value: gguf.ValueOf(pooling)})
	}
	var tensors []gguf.TensorData
	for i := range f.Tensors {
		ti := &f.Tensors[i]
		data, err := f.ReadTensor(ti)
		if err != nil {
			t.Fatal(err)
		}
		tensors = append(tensors, gguf.TensorData{Name: ti.Name, Type: ti.Type, Ne: ti.Ne, Data: data})
	}
	if pooling == 4 {
		rng := rand.New(rand.NewPCG(91, 92))
		randT := func(name string, ne ...uint64) {
			n := 1
			for _, x := range ne {
				n *= int(x)
			}
			v := make([]float32, n)
			for i := range v {
				v[i] = float32(rng.NormFloat64() * 0.3)
			}
			b, err := gguf.Quantize(gguf.TypeF32, v)
			if err != nil {
				t.Fatal(err)
			}
			tensors = append(tensors, gguf.TensorData{Name: name, Type: gguf.TypeF32, Ne: ne, Data: b})
		}
		randT("cls.weight", 96, 96)
		randT("cls.bias", 96)
		randT("cls.output.weight", 96, 1)
		randT("cls.output.bias", 1)
	}
	var buf bytes.Buffer
	if err := gguf.Write(&buf, kv, tensors, 32); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, name+"-pool"+string(rune('0'+pooling))+".gguf")
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}
