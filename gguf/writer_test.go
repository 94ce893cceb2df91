package gguf

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// TestWriteRoundTrip writes every value type, nested arrays and several
// tensor types, reads the result back and compares everything.
func TestWriteRoundTrip(t *testing.T) {
	kv, tensors := sampleKV(), sampleTensors(7)
	var buf bytes.Buffer
	if err := Write(&buf, kv, tensors, 0); err != nil {
		t.Fatal(err)
	}
	f, err := Open(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	if err != nil {
		t.Fatal(err)
	}
	if f.Version != 3 || f.Alignment != 64 || f.DataOffset%64 != 0 {
		t.Errorf("version %d alignment %d data offset %d", f.Version, f.Alignment, f.DataOffset)
	}
	if !reflect.DeepEqual(f.KV, kv) {
		for i := range kv {
			if i < len(f.KV) && !reflect.DeepEqual(f.KV[i], kv[i]) {
				t.Errorf("kv %d: got %#v, want %#v", i, f.KV[i], kv[i])
			}
		}
		t.Fatalf("metadata differs (%d vs %d keys)", len(f.KV), len(kv))
	}
	if len(f.Tensors) != len(tensors) {
		t.Fatalf("%d tensors, want %d", len(f.Tensors), len(tensors))
	}
	for i, want := range tensors {
		ti := &f.Tensors[i]
		if ti.Name != want.Name || ti.Type != want.Type || !equalU64(ti.Ne, want.Ne) || ti.Offset%64 != 0 {
			t.Errorf("tensor %d: %+v, want %s %v %v", i, ti, want.Name, want.Type, want.Ne)
		}
		got, err := f.ReadTensor(ti)
		if err != nil || !bytes.Equal(got, want.Data) {
			t.Errorf("tensor %s: data differs (%v)", want.Name, err)
		}
	}
	// The accessors see the written values with their conversions.
	if n, ok := f.Uint("{arch}.block_count"); !ok || n != 2 {
		t.Errorf("block_count %d %v", n, ok)
	}
	if v, ok := f.Int("t.i64"); !ok || v != -1<<63 {
		t.Errorf("t.i64 %d %v", v, ok)
	}
	if _, ok := f.Int("t.u64"); ok {
		t.Error("uint64 max converted to int64")
	}
	if _, ok := f.Uint("t.i8"); ok {
		t.Error("negative int8 converted to uint64")
	}
	if v, ok := f.Float("t.f32"); !ok || v != 3.25 {
		t.Errorf("t.f32 %v %v", v, ok)
	}
	if v, ok := f.Ints("a.u16"); !ok || !reflect.DeepEqual(v, []int64{1, 65535}) {
		t.Errorf("a.u16 as ints: %v %v", v, ok)
	}
	if _, ok := f.Ints("a.u64"); !ok {
		t.Error("a.u64 as ints")
	}
	if v, ok := f.Floats("a.f64"); !ok || !reflect.DeepEqual(v, []float32{1.5, -2}) {
		t.Errorf("a.f64 as floats: %v %v", v, ok)
	}
	if _, ok := f.String("t.u8"); ok {
		t.Error("uint8 read as string")
	}
}

// TestRewriteFixtures re-writes every fixture (written by llama.cpp's
// gguf-py, some by llama-quantize) from what the reader returns and
// requires the very same bytes: metadata, tensor infos, padding and data.
func TestRewriteFixtures(t *testing.T) {
	models, _ := filepath.Glob("../testdata/models/*.gguf")
	if len(models) == 0 {
		t.Fatal("no fixtures")
	}
	for _, path := range models {
		orig, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		f, err := Open(bytes.NewReader(orig), int64(len(orig)))
		if err != nil {
			t.Fatal(err)
		}
		tensors := make([]TensorData, len(f.Tensors))
		for i := range f.Tensors {
			ti := &f.Tensors[i]
			data, err := f.ReadTensor(ti)
			if err != nil {
				t.Fatal(err)
			}
			tensors[i] = TensorData{Name: ti.Name, Type: ti.Type, Ne: ti.Ne, Data: data}
		}
		var buf bytes.Buffer
		if err := Write(&buf, f.KV, tensors, int(f.Alignment)); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(buf.Bytes(), orig) {
			t.Errorf("%s: re-written file differs (%d vs %d bytes)", filepath.Base(path), buf.Len(), len(orig))
		}
	}
}

// TestStreamingWriter feeds the same tensors through NewWriter in odd-sized
// pieces and expects the bytes Write produces.
func TestStreamingWriter(t *testing.T) {
	kv, tensors := sampleKV(), sampleTensors(3)
	var want bytes.Buffer
	if err := Write(&want, kv, tensors, 0); err != nil {
		t.Fatal(err)
	}
	infos := make([]TensorInfo, len(tensors))
	var all []byte
	for i, td := range tensors {
		infos[i] = TensorInfo{Name: td.Name, Type: td.Type, Ne: td.Ne}
		all = append(all, td.Data...)
	}
	var got bytes.Buffer
	w, err := NewWriter(&got, kv, infos, 64)
	if err != nil {
		t.Fatal(err)
	}
	for len(all) > 0 {
		n := min(len(all), 13)
		if _, err := w.Write(all[:n]); err != nil {
			t.Fatal(err)
		}
		all = all[n:]
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got.Bytes(), want.Bytes()) {
		t.Error("streamed file differs from Write's")
	}
	for i, ti := range w.Tensors() {
		if ti.Offset%64 != 0 || ti.Size != int64(len(tensors[i].Data)) {
			t.Errorf("tensor %d: offset %d size %d", i, ti.Offset, ti.Size)
		}
	}
}

// TestWriterErrors checks that inconsistent input is refused.
func TestWriterErrors(t *testing.T) {
	td := sampleTensors(5)[:1]
	cases := []struct {
		name    string
		kv      []KV
		tensors []TensorData
		align   int
		err     error
	}{
		{"type mismatch", []KV{{"a", Value{Type: ValueUint32, V: "x"}}}, nil, 0, nil},
		{"elem mismatch", []KV{{"a", Value{Type: ValueArray, Elem: ValueInt8, V: []uint8{1}}}}, nil, 0, nil},
		{"unsupported Go type", []KV{{"a", ValueOf(struct{}{})}}, nil, 0, nil},
		{"scalar inside array of arrays", []KV{{"a", ValueOf([]Value{ValueOf(uint8(1))})}}, nil, 0, nil},
		{"duplicate key", []KV{{"a", ValueOf(true)}, {"a", ValueOf(false)}}, nil, 0, ErrDuplicateKey},
		{"bad alignment", nil, nil, 24, ErrAlignment},
		{"alignment conflict", []KV{{"general.alignment", ValueOf(uint32(64))}}, nil, 32, ErrAlignment},
		{"duplicate tensor", nil, []TensorData{td[0], td[0]}, 0, ErrDuplicateTensor},
		{"short data", nil, []TensorData{{Name: "x", Type: TypeF32, Ne: []uint64{4}, Data: make([]byte, 15)}}, 0, nil},
		{"partial block", nil, []TensorData{{Name: "x", Type: TypeQ8_0, Ne: []uint64{16}, Data: make([]byte, 17)}}, 0, ErrBlockSize},
		{"unknown type", nil, []TensorData{{Name: "x", Type: 5, Ne: []uint64{4}}}, 0, ErrTensorType},
		{"no dims", nil, []TensorData{{Name: "x", Type: TypeF32}}, 0, ErrDims},
	}
	for _, c := range cases {
		err := Write(&bytes.Buffer{}, c.kv, c.tensors, c.align)
		if err == nil || (c.err != nil && !errors.Is(err, c.err)) {
			t.Errorf("%s: got %v, want %v", c.name, err, c.err)
		}
	}
	w, err := NewWriter(&bytes.Buffer{}, nil, []TensorInfo{{Name: "x", Type: TypeF32, Ne: []uint64{2}}}, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write(make([]byte, 12)); err == nil {
		t.Error("writing more data than the tensors hold succeeded")
	}
	w, _ = NewWriter(&bytes.Buffer{}, nil, []TensorInfo{{Name: "x", Type: TypeF32, Ne: []uint64{2}}}, 0)
	w.Write(make([]byte, 4))
	if err := w.Close(); err == nil {
		t.Error("Close with missing data succeeded")
	}
}
