package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"testing"
)

// TestBenchProfile runs `webgguf bench --profile --json` on a fixture model
// natively (lavapipe): each test gets a profile whose dispatches match the
// step's dispatch count, are all labelled and timed, sum to the total, and
// whose host phases are positive; the decode step is made of matvec and
// attention kernels.
func TestBenchProfile(t *testing.T) {
	if os.Getenv("LP_NUM_THREADS") == "" {
		t.Setenv("LP_NUM_THREADS", "0")
	}
	var out bytes.Buffer
	err := benchCmd(context.Background(), []string{"--model", "../../testdata/models/tiny-llama-q8_0.gguf",
		"-p", "8", "-n", "2", "--ubatch", "8", "--json", "--profile"}, &out, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	var res struct {
		Results  []benchRow     `json:"results"`
		Profiles []benchProfile `json:"profiles"`
	}
	if err := json.Unmarshal(out.Bytes(), &res); err != nil {
		t.Fatalf("%v in %s", err, out.String())
	}
	if len(res.Profiles) != 2 || len(res.Results) != 2 {
		t.Fatalf("%d profiles, %d results, want 2 each: %s", len(res.Profiles), len(res.Results), out.String())
	}
	for i, bp := range res.Profiles {
		pr := bp.Profile
		if bp.Test != res.Results[i].Test || pr == nil || pr.Runs < 1 || pr.Phases.Encode <= 0 || pr.Phases.Submit <= 0 || pr.WriteStep <= 0 || pr.Wall <= 0 {
			t.Fatalf("profile %d: %+v", i, bp)
		}
		if len(pr.Dispatches) == 0 {
			t.Log("device without timestamp-query: host phases only")
			continue
		}
		if len(pr.Dispatches) != res.Results[i].Dispatches {
			t.Errorf("%s: %d profiled dispatches, step has %d", bp.Test, len(pr.Dispatches), res.Results[i].Dispatches)
		}
		var sum int64
		seen := map[string]bool{}
		for _, d := range pr.Dispatches {
			if d.Label == "" || d.Grid[0] == 0 {
				t.Errorf("%s: dispatch %+v", bp.Test, d)
			}
			sum += int64(d.GPU)
			seen[d.Label] = true
		}
		if sum != int64(pr.GPUTotal) || sum <= 0 {
			t.Errorf("%s: dispatch times sum to %d, total %d", bp.Test, sum, pr.GPUTotal)
		}
		if bp.Test == "tg2" && (!seen["matvec"] || !seen["attn_decode"]) {
			t.Errorf("decode profile kernels %v: want matvec and attn_decode", seen)
		}
	}
}
