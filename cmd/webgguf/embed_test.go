package main

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestEvalCommandEmbeddings runs eval on the BERT fixture: it writes the
// fixtures' embedding schema, passes the judgement against llama.cpp's ref
// and the float64 exact file, and a copy with one component moved by 0.01
// fails it.
func TestEvalCommandEmbeddings(t *testing.T) {
	const name = "tiny-bert-f16"
	ref, exact := "../../testdata/ref/"+name+".ref.json", "../../testdata/ref/"+name+".exact.json"
	out := filepath.Join(t.TempDir(), "out.json")
	var log bytes.Buffer
	err := evalCmd(context.Background(), []string{
		"--model", "../../testdata/models/" + name + ".gguf",
		"--prompts", "../../testdata/prompts.txt", "--tokens", "../../testdata/toks.txt",
		"--out", out, "--ref", ref, "--exact", exact,
	}, &log)
	if err != nil {
		t.Fatalf("%v\n%s", err, log.String())
	}
	if !strings.Contains(log.String(), "embeddings: tolerance") {
		t.Fatalf("no embedding verdict: %s", log.String())
	}
	f, err := readEmbeddingFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Prompts) != 5 || len(f.Tokenize) != 70 || f.Prompts[0].Pooling == nil || *f.Prompts[0].Pooling != 1 {
		t.Fatalf("%d prompts, %d tokenize entries, pooling %v", len(f.Prompts), len(f.Tokenize), f.Prompts[0].Pooling)
	}
	f.Prompts[2].Embedding[7] += 0.01
	b, _ := json.Marshal(f)
	bad := filepath.Join(t.TempDir(), "bad.json")
	if err := os.WriteFile(bad, b, 0o644); err != nil {
		t.Fatal(err)
	}
	log.Reset()
	if err := judgeFile(bad, ref, exact, &log); err == nil {
		t.Errorf("a 0.01 error passed: %s", log.String())
	}
}

// TestEmbedCommand checks embed's JSON: by default each vector has unit
// norm and points as llama.cpp's float64 reference does; --normalize=false
// gives the pooled vector itself.
func TestEmbedCommand(t *testing.T) {
	exact, err := readEmbeddingFile("../../testdata/ref/tiny-bert-f16.exact.json")
	if err != nil {
		t.Fatal(err)
	}
	want := exact.Prompts[0]
	for _, norm := range []bool{true, false} {
		var stdout, stderr bytes.Buffer
		args := []string{"--model", "../../testdata/models/tiny-bert-f16.gguf", "--input", want.Prompt}
		if !norm {
			args = append(args, "--normalize=false")
		}
		if err := embedCmd(context.Background(), args, &stdout, &stderr); err != nil {
			t.Fatalf("%v\n%s", err, stderr.String())
		}
		var out embedOutput
		if err := json.Unmarshal(stdout.Bytes(), &out); err != nil {
			t.Fatal(err)
		}
		if out.Pooling != "mean" || out.NEmbd != 96 || len(out.Data) != 1 || out.Data[0].Tokens != len(want.IDs) {
			t.Fatalf("output %+v", out)
		}
		var wn float64
		for _, v := range want.Embedding {
			wn += v * v
		}
		scale := 1.0
		if norm {
			scale = 1 / math.Sqrt(wn)
		}
		for j, v := range out.Data[0].Embedding {
			if d := math.Abs(float64(v) - want.Embedding[j]*scale); d > 1e-3 {
				t.Fatalf("normalize %v: component %d: %g, want %g", norm, j, v, want.Embedding[j]*scale)
			}
		}
	}
}
