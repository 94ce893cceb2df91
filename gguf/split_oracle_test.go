package gguf

import (
	"bufio"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestSplitLoadsInLlamaCpp splits a fixture model into three shards with
// Write, SplitKV and SplitPath, loads the first shard in llama.cpp
// (node-llama-cpp, scripts/oracle) and requires logits identical to those
// of the unsplit original: proof that llama.cpp accepts our writer, our
// split keys and our shard names, and finds every tensor.
func TestSplitLoadsInLlamaCpp(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: skipping the llama.cpp round trip")
	}
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	if os.Getenv("WEBGGUF_NO_ORACLE") == "1" {
		t.Skip("WEBGGUF_NO_ORACLE=1: llama.cpp oracle comparison disabled by request")
	}
	if _, err := os.Stat(filepath.Join(root, "scripts/oracle/node_modules/node-llama-cpp")); err != nil {
		t.Fatalf("oracle not installed (run make deps, or set WEBGGUF_NO_ORACLE=1): %v", err)
	}
	orig := filepath.Join(root, "testdata/models/tiny-llama-q8_0.gguf")
	f, err := OpenPath(orig)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	tensors := make([]TensorData, len(f.Tensors))
	for i := range f.Tensors {
		ti := &f.Tensors[i]
		data, err := f.ReadTensor(ti)
		if err != nil {
			t.Fatal(err)
		}
		tensors[i] = TensorData{Name: ti.Name, Type: ti.Type, Ne: ti.Ne, Data: data}
	}
	groups := [][]int{{}, {}, {}}
	for i := range tensors {
		groups[i*3/len(tensors)] = append(groups[i*3/len(tensors)], i)
	}
	prefix := filepath.Join(t.TempDir(), "tiny")
	for i, shard := range writeShards(t, f.KV, tensors, groups) {
		if err := os.WriteFile(SplitPath(prefix, i, len(groups)), shard, 0o644); err != nil {
			t.Fatal(err)
		}
	}

	cmd := exec.Command("node", "scripts/oracle/oracle.mjs")
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "NODE_LLAMA_CPP_SKIP_DOWNLOAD=true")
	cmd.Stderr = io.Discard
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting node: %v", err)
	}
	defer func() { in.Close(); cmd.Wait() }()
	rd := bufio.NewReaderSize(out, 1<<20)
	call := func(req map[string]any) map[string]json.RawMessage {
		t.Helper()
		if err := json.NewEncoder(in).Encode(req); err != nil {
			t.Fatal(err)
		}
		line, err := rd.ReadBytes('\n')
		if err != nil {
			t.Fatalf("oracle died: %v", err)
		}
		var resp map[string]json.RawMessage
		if err := json.Unmarshal(line, &resp); err != nil || string(resp["ok"]) != "true" {
			t.Fatalf("oracle: %s (%v)", line, err)
		}
		return resp
	}
	ids := []int{1, 450, 2996, 1354, 701} // within the 4096-token vocabulary
	logits := func(path string, id int) string {
		r := call(map[string]any{"id": id, "op": "load", "path": path, "contextSize": 64})
		var model int
		json.Unmarshal(r["model"], &model)
		r = call(map[string]any{"id": id + 1, "op": "logits", "model": model, "ids": ids, "all": true})
		return string(r["logits"])
	}
	want := logits(orig, 0)
	got := logits(SplitPath(prefix, 0, 3), 10)
	if len(want) < 1000 || got != want {
		t.Errorf("split model's logits differ from the original's (%d vs %d bytes of JSON)", len(got), len(want))
	}
}
