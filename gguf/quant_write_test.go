package gguf

import (
	"bytes"
	"math/rand/v2"
	"testing"
	"time"
)

// TestQuantizeWriteRead: for every quantizer, quantize random rows, write
// them with Write as a GGUF v3 tensor, read the file back with Open and
// ReadTensor, and require the same bytes and the same dequantized values.
func TestQuantizeWriteRead(t *testing.T) {
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 5))
	const cols, rows = 512, 6
	var tensors []TensorData
	orig := map[string][]byte{}
	for typ := range quantizers {
		x := make([]float32, cols*rows)
		for i := range x {
			x[i] = float32(rng.NormFloat64())
		}
		q, err := Quantize(typ, x)
		if err != nil {
			t.Fatal(err)
		}
		name := "w." + typ.String()
		orig[name] = q
		tensors = append(tensors, TensorData{Name: name, Type: typ, Ne: []uint64{cols, rows}, Data: q})
	}
	var buf bytes.Buffer
	kv := []KV{{Key: "general.architecture", Value: ValueOf("llama")}}
	if err := Write(&buf, kv, tensors, 0); err != nil {
		t.Fatal(err)
	}
	f, err := Open(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Tensors) != len(tensors) {
		t.Fatalf("read %d tensors, wrote %d", len(f.Tensors), len(tensors))
	}
	for _, td := range tensors {
		ti, ok := f.Tensor(td.Name)
		if !ok || ti.Type != td.Type || ti.Ne[0] != cols || ti.Ne[1] != rows {
			t.Fatalf("%s: read back as %+v", td.Name, ti)
		}
		got, err := f.ReadTensor(ti)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, orig[td.Name]) {
			t.Errorf("%s: bytes changed through write/read", td.Name)
		}
		a, err := Dequantize(ti.Type, got, cols*rows)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := Dequantize(td.Type, td.Data, cols*rows)
		for i := range a {
			if a[i] != b[i] {
				t.Fatalf("%s[%d]: %g after read, %g before", td.Name, i, a[i], b[i])
			}
		}
	}
}
