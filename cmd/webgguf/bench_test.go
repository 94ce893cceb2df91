package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"testing"
)

// TestBenchGPU runs `webgguf bench --json` on a fixture model natively
// (lavapipe): every requested test and depth is reported with a positive
// speed and, on the GPU, the dispatch count and encode time of a step.
func TestBenchGPU(t *testing.T) {
	// lavapipe with worker threads crashes at random in decode steps (see
	// compute/gpu's TestMain); run the shaders on the submitting thread.
	if os.Getenv("LP_NUM_THREADS") == "" {
		t.Setenv("LP_NUM_THREADS", "0")
	}
	var out bytes.Buffer
	err := benchCmd(context.Background(), []string{"--model", "../../testdata/models/tiny-llama-q8_0.gguf",
		"-p", "16", "-n", "4", "-d", "0,8", "--ubatch", "8", "--json"}, &out, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	var rows []benchRow
	if err := json.Unmarshal(out.Bytes(), &rows); err != nil {
		t.Fatalf("%v in %s", err, out.String())
	}
	want := []struct {
		test  string
		depth int
	}{{"pp16", 0}, {"tg4", 0}, {"pp16", 8}, {"tg4", 8}}
	if len(rows) != len(want) {
		t.Fatalf("%d results, want %d: %s", len(rows), len(want), out.String())
	}
	for i, w := range want {
		r := rows[i]
		if r.Test != w.test || r.Depth != w.depth || r.Backend != "webgpu" || !(r.TokPerSec > 0) || r.Dispatches < 1 || r.Steps < 1 || !(r.EncodeUs > 0) {
			t.Errorf("result %d: %+v, want %s at depth %d with positive speed and GPU counters", i, r, w.test, w.depth)
		}
	}
	// pp16 in micro-batches of 8 is two steps; tg4 is four.
	if rows[0].Steps != 2 || rows[1].Steps != 4 {
		t.Errorf("steps: pp %d (want 2), tg %d (want 4)", rows[0].Steps, rows[1].Steps)
	}
}
