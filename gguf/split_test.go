package gguf

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// writeShards splits tensors over shards the way llama-gguf-split does:
// shard 0 carries the model metadata plus the split keys, the others only
// the split keys; groups[i] lists the tensor indices of shard i.
func writeShards(t *testing.T, kv []KV, tensors []TensorData, groups [][]int) [][]byte {
	t.Helper()
	out := make([][]byte, len(groups))
	for i, g := range groups {
		var skv []KV
		if i == 0 {
			skv = append(skv, kv...)
		}
		skv = append(skv, SplitKV(i, len(groups), len(tensors))...)
		var part []TensorData
		for _, j := range g {
			part = append(part, tensors[j])
		}
		var buf bytes.Buffer
		if err := Write(&buf, skv, part, 0); err != nil {
			t.Fatal(err)
		}
		out[i] = buf.Bytes()
	}
	return out
}

func parts(shards [][]byte) []Part {
	p := make([]Part, len(shards))
	for i, s := range shards {
		p[i] = Part{R: bytes.NewReader(s), Size: int64(len(s))}
	}
	return p
}

// TestOpenSplit writes a model in three shards (the first holding only
// metadata, like --no-tensor-first-split) and checks that OpenSplit sees one
// model: shard 0's metadata, every tensor with its bytes, in order.
func TestOpenSplit(t *testing.T) {
	kv := sampleKV()[:3]
	kv[1] = KV{"general.alignment", ValueOf(uint32(32))}
	tensors := sampleTensors(11)
	shards := writeShards(t, kv, tensors, [][]int{{}, {0, 1}, {2, 3}})
	f, err := OpenSplit(parts(shards))
	if err != nil {
		t.Fatal(err)
	}
	if f.Splits() != 3 || f.Arch() != "llama" || len(f.Tensors) != len(tensors) {
		t.Fatalf("splits %d arch %q tensors %d", f.Splits(), f.Arch(), len(f.Tensors))
	}
	if n, ok := f.Uint(KeySplitTensorsCount); !ok || n != 4 {
		t.Errorf("split.tensors.count %d %v", n, ok)
	}
	wantSplit := []int{1, 1, 2, 2}
	for i, td := range tensors {
		ti, ok := f.Tensor(td.Name)
		if !ok || ti.Split != wantSplit[i] || !reflect.DeepEqual(ti.Ne, td.Ne) {
			t.Fatalf("tensor %s: %+v", td.Name, ti)
		}
		got, err := f.ReadTensor(ti)
		if err != nil || !bytes.Equal(got, td.Data) {
			t.Errorf("tensor %s: data differs (%v)", td.Name, err)
		}
		var streamed []byte
		f.StreamTensor(ti, make([]byte, 5), func(_ int64, c []byte) error { streamed = append(streamed, c...); return nil })
		if !bytes.Equal(streamed, td.Data) {
			t.Errorf("tensor %s: streamed data differs", td.Name)
		}
	}
}

// TestOpenSplitErrors checks inconsistent shard sets are refused.
func TestOpenSplitErrors(t *testing.T) {
	kv := sampleKV()[:1]
	tensors := sampleTensors(12)
	shards := writeShards(t, kv, tensors, [][]int{{0}, {1, 2}, {3}})
	dupTensor := writeShards(t, kv, append(tensors[:2:2], tensors[1], tensors[2]), [][]int{{0, 1}, {2, 3}})
	var noSplitKeys bytes.Buffer
	if err := Write(&noSplitKeys, kv, tensors[:1], 0); err != nil {
		t.Fatal(err)
	}
	cases := map[string][][]byte{
		"missing shard":      {shards[0], shards[1]},
		"wrong order":        {shards[0], shards[2], shards[1]},
		"repeated shard":     {shards[0], shards[1], shards[1]},
		"duplicate tensor":   dupTensor,
		"no split keys":      {noSplitKeys.Bytes(), shards[1], shards[2]},
		"tensor count wrong": writeShards(t, kv, tensors[:3], [][]int{{0}, {1}})[:2],
		"none":               nil,
	}
	for name, c := range cases {
		_, err := OpenSplit(parts(c))
		if !errors.Is(err, ErrSplit) && !errors.Is(err, ErrDuplicateTensor) {
			t.Errorf("%s: %v", name, err)
		}
	}
	// A plain file is a one-part split model.
	if f, err := OpenSplit(parts([][]byte{noSplitKeys.Bytes()})); err != nil || f.Splits() != 1 {
		t.Errorf("single plain part: %v", err)
	}
}

// TestSplitPaths checks llama.cpp's shard naming (llama_split_path:
// "%s-%05d-of-%05d.gguf", 1-based) and OpenSplitPath from disk.
func TestSplitPaths(t *testing.T) {
	if got := SplitPath("/m/model", 0, 3); got != "/m/model-00001-of-00003.gguf" {
		t.Errorf("SplitPath: %s", got)
	}
	got, err := SplitPaths("/m/x-00001-of-00002.gguf")
	if err != nil || !reflect.DeepEqual(got, []string{"/m/x-00001-of-00002.gguf", "/m/x-00002-of-00002.gguf"}) {
		t.Errorf("SplitPaths: %v %v", got, err)
	}
	if got, _ := SplitPaths("/m/plain.gguf"); !reflect.DeepEqual(got, []string{"/m/plain.gguf"}) {
		t.Errorf("plain: %v", got)
	}
	if _, err := SplitPaths("/m/x-00002-of-00002.gguf"); !errors.Is(err, ErrSplit) {
		t.Errorf("second shard accepted as first: %v", err)
	}

	dir := t.TempDir()
	tensors := sampleTensors(13)
	shards := writeShards(t, sampleKV()[:1], tensors, [][]int{{0, 1, 2}, {3}})
	for i, s := range shards {
		if err := os.WriteFile(SplitPath(filepath.Join(dir, "tiny"), i, len(shards)), s, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	f, err := OpenSplitPath(filepath.Join(dir, "tiny-00001-of-00002.gguf"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	ti, _ := f.Tensor(tensors[3].Name)
	if data, err := f.ReadTensor(ti); err != nil || !bytes.Equal(data, tensors[3].Data) || ti.Split != 1 {
		t.Errorf("tensor from shard 2: %v", err)
	}
	os.Remove(SplitPath(filepath.Join(dir, "tiny"), 1, 2))
	if _, err := OpenSplitPath(filepath.Join(dir, "tiny-00001-of-00002.gguf")); err == nil {
		t.Error("opened with a shard missing")
	}
}
