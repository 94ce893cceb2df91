package gguf

import (
	"bytes"
	"errors"
	"os"
	"reflect"
	"testing"
)

// FuzzOpen feeds arbitrary bytes to Open. Besides "never panic", it checks
// two properties of accepted input: every tensor's data can be read (Open
// validated the ranges), and read→write is a fixed point: writing what was
// read, reading that and writing again gives identical bytes.
func FuzzOpen(f *testing.F) {
	sample := sampleFile(f)
	f.Add(sample)
	for _, n := range []int{4, 8, 24, 100, len(sample) / 2, len(sample) - 1} {
		f.Add(sample[:n])
	}
	// A version 2 file (same layout as v3 for little-endian data).
	v2 := bytes.Clone(sample)
	v2[4] = 2
	f.Add(v2)
	// The head of a real vocabulary file: long string arrays, truncated.
	if head, err := os.ReadFile("../testdata/models/vocab-llama-spm.gguf"); err == nil {
		f.Add(head[:4096])
	}
	// Real fixtures made small: their metadata with arrays cut to 8
	// elements, and their small tensors.
	for _, name := range []string{"tiny-qwen3-q8_0.gguf", "tiny-llama-mixed.gguf", "vocab-qwen3-bpe.gguf"} {
		f.Add(shrinkFixture(f, name))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		g, err := Open(bytes.NewReader(data), int64(len(data)))
		if err != nil {
			var fe *FormatError
			if !errors.As(err, &fe) {
				t.Fatalf("error is not a *FormatError: %v", err)
			}
			return
		}
		tensors := make([]TensorData, len(g.Tensors))
		for i := range g.Tensors {
			ti := &g.Tensors[i]
			raw, err := g.ReadTensor(ti)
			if err != nil {
				t.Fatalf("accepted tensor %q unreadable: %v", ti.Name, err)
			}
			tensors[i] = TensorData{Name: ti.Name, Type: ti.Type, Ne: ti.Ne, Data: raw}
		}
		var w1 bytes.Buffer
		if err := Write(&w1, g.KV, tensors, int(g.Alignment)); err != nil {
			t.Fatalf("cannot re-write accepted file: %v", err)
		}
		g2, err := Open(bytes.NewReader(w1.Bytes()), int64(w1.Len()))
		if err != nil {
			t.Fatalf("cannot read re-written file: %v", err)
		}
		for i := range g2.Tensors {
			raw, err := g2.ReadTensor(&g2.Tensors[i])
			if err != nil {
				t.Fatal(err)
			}
			tensors[i].Data = raw
		}
		var w2 bytes.Buffer
		if err := Write(&w2, g2.KV, tensors, int(g2.Alignment)); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(w1.Bytes(), w2.Bytes()) {
			t.Fatal("read→write is not a fixed point")
		}
	})
}

// shrinkFixture re-writes a fixture with every array cut to 8 elements
// and only its tensors of at most 1 KiB, as a small, realistic fuzz seed.
func shrinkFixture(t testing.TB, name string) []byte {
	data := readFixture(t, name)
	g, err := Open(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	kv := make([]KV, len(g.KV))
	for i, p := range g.KV {
		if p.Value.Type == ValueArray && p.Value.Len() > 8 {
			p.Value.V = reflect.ValueOf(p.Value.V).Slice(0, 8).Interface()
		}
		kv[i] = p
	}
	var tensors []TensorData
	for i := range g.Tensors {
		ti := &g.Tensors[i]
		if ti.Size > 1024 {
			continue
		}
		raw, err := g.ReadTensor(ti)
		if err != nil {
			t.Fatal(err)
		}
		tensors = append(tensors, TensorData{Name: ti.Name, Type: ti.Type, Ne: ti.Ne, Data: raw})
	}
	var buf bytes.Buffer
	if err := Write(&buf, kv, tensors, int(g.Alignment)); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}
