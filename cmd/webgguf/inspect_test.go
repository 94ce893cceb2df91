package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/webgguf/webgguf/gguf"
)

const models = "../../testdata/models/"

// TestInspectJSON checks the --json tensor list against llama.cpp's own
// listing (testdata/ref/dequant.ref.json) and metadata against the facts
// in testdata/FIXTURES.md.
func TestInspectJSON(t *testing.T) {
	var out bytes.Buffer
	if err := inspect([]string{models + "tiny-llama-mixed.gguf", "--json"}, &out); err != nil {
		t.Fatal(err)
	}
	var got struct {
		Metadata map[string]any `json:"metadata"`
		Tensors  []struct {
			Name   string   `json:"name"`
			Type   string   `json:"type"`
			Ne     []uint64 `json:"ne"`
			Offset uint64   `json:"offset"`
		} `json:"tensors"`
	}
	if err := json.Unmarshal(out.Bytes(), &got); err != nil {
		t.Fatalf("output is not JSON: %v", err)
	}
	raw, err := os.ReadFile("../../testdata/ref/dequant.ref.json")
	if err != nil {
		t.Fatal(err)
	}
	var ref map[string][]struct {
		Name string   `json:"name"`
		Type string   `json:"type"`
		Ne   []uint64 `json:"ne"`
	}
	if err := json.Unmarshal(raw, &ref); err != nil {
		t.Fatal(err)
	}
	want := ref["tiny-llama-mixed.gguf"]
	if len(want) == 0 || len(got.Tensors) != len(want) {
		t.Fatalf("%d tensors, llama.cpp lists %d", len(got.Tensors), len(want))
	}
	byName := map[string]int{}
	for i, tt := range got.Tensors {
		byName[tt.Name] = i
	}
	for _, w := range want {
		i, ok := byName[w.Name]
		if !ok {
			t.Errorf("tensor %s missing", w.Name)
			continue
		}
		g := got.Tensors[i]
		if !strings.EqualFold(g.Type, w.Type) || !equalNe(g.Ne, w.Ne) || g.Offset%32 != 0 {
			t.Errorf("%s: %s %v @%d, want %s %v", w.Name, g.Type, g.Ne, g.Offset, w.Type, w.Ne)
		}
	}
	md := got.Metadata
	if md["llama.embedding_length"] != 256.0 || md["llama.block_count"] != 2.0 || md["llama.attention.head_count"] != 4.0 || md["general.architecture"] != "llama" {
		t.Errorf("metadata facts: %v %v %v %v", md["llama.embedding_length"], md["llama.block_count"], md["llama.attention.head_count"], md["general.architecture"])
	}
	if toks, _ := md["tokenizer.ggml.tokens"].([]any); len(toks) != 4096 || toks[0] != "<unk>" {
		t.Errorf("tokens: %d", len(toks))
	}
}

func equalNe(a, b []uint64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestInspectJSONValues writes every awkward value (non-finite floats,
// nested arrays, quotes) and checks the JSON decodes to them.
func TestInspectJSONValues(t *testing.T) {
	path := filepath.Join(t.TempDir(), "v.gguf")
	fh, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	kv := []gguf.KV{
		{Key: "f", Value: gguf.ValueOf([]float32{1.5, float32(math.NaN()), float32(math.Inf(-1))})},
		{Key: "s", Value: gguf.ValueOf("a \"quoted\"\n<tag>")},
		{Key: "n", Value: gguf.ValueOf([]gguf.Value{gguf.ValueOf([]int8{-1, 2}), gguf.ValueOf([]string{"x"})})},
		{Key: "u", Value: gguf.ValueOf(uint64(math.MaxUint64))},
	}
	if err := gguf.Write(fh, kv, nil, 0); err != nil {
		t.Fatal(err)
	}
	fh.Close()
	var out bytes.Buffer
	if err := inspect([]string{"--json", path}, &out); err != nil {
		t.Fatal(err)
	}
	var got struct {
		Metadata map[string]json.RawMessage `json:"metadata"`
	}
	if err := json.Unmarshal(out.Bytes(), &got); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out.String())
	}
	want := map[string]string{
		"f": `[1.5,"NaN","-Inf"]`,
		"s": `"a \"quoted\"\n\u003ctag\u003e"`,
		"n": `[[-1,2],["x"]]`,
		"u": `18446744073709551615`,
	}
	for k, w := range want {
		if string(got.Metadata[k]) != w {
			t.Errorf("%s = %s, want %s", k, got.Metadata[k], w)
		}
	}
}

// TestInspectText checks text mode abbreviates a 151669-token vocabulary
// and lists every tensor.
func TestInspectText(t *testing.T) {
	var out bytes.Buffer
	if err := inspect([]string{models + "vocab-qwen3-bpe.gguf"}, &out); err != nil {
		t.Fatal(err)
	}
	s := out.String()
	if !strings.Contains(s, "[STRING]   |   151669 | tokenizer.ggml.tokens = [") || !strings.Contains(s, "... (151661 more)]") {
		t.Errorf("token array not abbreviated:\n%s", s)
	}
	for _, line := range strings.Split(s, "\n") {
		if len(line) > 1000 {
			t.Errorf("line of %d bytes", len(line))
		}
	}
	out.Reset()
	if err := inspect([]string{models + "tiny-qwen2-q8_0.gguf"}, &out); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "* Dumping 27 tensor(s)") || !strings.Contains(out.String(), "| Q8_0    |") || strings.Count(out.String(), ".bias\n") != 6 {
		t.Errorf("tensor table:\n%s", out.String())
	}
}

// TestInspectSplit inspects a model written as two shards through its
// first shard's name and expects both shards' tensors.
func TestInspectSplit(t *testing.T) {
	prefix := filepath.Join(t.TempDir(), "m")
	for i := 0; i < 2; i++ {
		kv := gguf.SplitKV(i, 2, 2)
		if i == 0 {
			kv = append([]gguf.KV{{Key: "general.architecture", Value: gguf.ValueOf("llama")}}, kv...)
		}
		td := []gguf.TensorData{{Name: fmt.Sprintf("t%d", i), Type: gguf.TypeF32, Ne: []uint64{2, 3}, Data: bytes.Repeat([]byte{byte(i + 1)}, 24)}}
		fh, err := os.Create(gguf.SplitPath(prefix, i, 2))
		if err != nil {
			t.Fatal(err)
		}
		if err := gguf.Write(fh, kv, td, 0); err != nil {
			t.Fatal(err)
		}
		fh.Close()
	}
	var out bytes.Buffer
	if err := inspect([]string{prefix + "-00001-of-00002.gguf"}, &out); err != nil {
		t.Fatal(err)
	}
	s := out.String()
	if !strings.Contains(s, "2 shards") || !strings.Contains(s, "| shard 2 | t1") || !strings.Contains(s, "* Dumping 2 tensor(s)") {
		t.Errorf("split listing:\n%s", s)
	}
}

// TestInspectErrors checks usage errors and that a malformed file's typed
// error comes through.
func TestInspectErrors(t *testing.T) {
	for _, args := range [][]string{nil, {"--yaml", "x"}, {"a", "b"}, {"/nonexistent.gguf"}} {
		if err := inspect(args, &bytes.Buffer{}); err == nil {
			t.Errorf("%q: no error", args)
		}
	}
	path := filepath.Join(t.TempDir(), "bad.gguf")
	os.WriteFile(path, []byte("GGUF\x03\x00\x00\x00\xff\xff\xff\xff\xff\xff\xff\xff"), 0o644)
	var fe *gguf.FormatError
	if err := inspect([]string{path}, &bytes.Buffer{}); !errors.As(err, &fe) || !errors.Is(err, gguf.ErrTooLarge) {
		t.Errorf("malformed file: %v", err)
	}
}
