package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/webgguf/webgguf/engine/refcheck"
	"github.com/webgguf/webgguf/gguf"
	"github.com/webgguf/webgguf/tokenizer"
)

// TestEvalCommandMatchesFixture runs `webgguf eval` exactly as the fixture
// was made and compares the file with llama.cpp's: tokenizations and
// prompt ids identical, top-1 equal to the float64 reference wherever its
// margin exceeds the tolerance, our logits on the exact top-5 within it
// (when they are in our top 20), greedy tokens equal to the float64 ones.
func TestEvalCommandMatchesFixture(t *testing.T) {
	const name = "tiny-llama-q8_0"
	out := filepath.Join(t.TempDir(), "out.json")
	err := evalCmd(context.Background(), []string{
		"--model", "../../testdata/models/" + name + ".gguf",
		"--prompts", "../../testdata/prompts.txt", "--tokens", "../../testdata/toks.txt",
		"--gen", "32", "--out", out,
	}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	got, err := refcheck.Load(out)
	if err != nil {
		t.Fatal(err)
	}
	llama, err := refcheck.Load("../../testdata/ref/" + name + ".ref.json")
	if err != nil {
		t.Fatal(err)
	}
	exact, err := refcheck.Load("../../testdata/ref/" + name + ".exact.json")
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got.Tokenize, llama.Tokenize) {
		t.Errorf("tokenize[] differs from llama.cpp's")
	}
	if got.NVocab != llama.NVocab || got.TopK != llama.TopK || len(got.Prompts) != len(llama.Prompts) {
		t.Fatalf("header n_vocab %d topk %d prompts %d; llama.cpp %d %d %d", got.NVocab, got.TopK, len(got.Prompts), llama.NVocab, llama.TopK, len(llama.Prompts))
	}
	tol, err := refcheck.ComputeTolerance(llama, exact)
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for pi, p := range got.Prompts {
		e := exact.Prompts[pi]
		if !reflect.DeepEqual(p.IDs, llama.Prompts[pi].IDs) || p.Prompt != llama.Prompts[pi].Prompt {
			t.Errorf("prompt %d: ids %v, llama.cpp %v", pi, p.IDs, llama.Prompts[pi].IDs)
			continue
		}
		if !reflect.DeepEqual(p.Greedy, e.Greedy) {
			t.Errorf("prompt %d: greedy %v, float64 reference %v", pi, p.Greedy, e.Greedy)
		}
		for i, pos := range p.Positions {
			ep := e.Positions[i]
			if len(pos.Top) != 20 {
				t.Fatalf("prompt %d pos %d: %d top pairs", pi, i, len(pos.Top))
			}
			if ep.Top[0][1]-ep.Top[1][1] > tol.Logit && pos.Top[0][0] != ep.Top[0][0] {
				t.Errorf("prompt %d pos %d: top-1 %v, exact %v", pi, i, pos.Top[0][0], ep.Top[0][0])
			}
			for _, pair := range ep.Top[:5] {
				for _, ours := range pos.Top {
					if ours[0] == pair[0] {
						checked++
						if d := ours[1] - pair[1]; d > tol.Logit || d < -tol.Logit {
							t.Errorf("prompt %d pos %d id %v: %v, exact %v", pi, i, pair[0], ours[1], pair[1])
						}
					}
				}
			}
			if d := pos.LSE - ep.LSE; d > tol.LSE || d < -tol.LSE {
				t.Errorf("prompt %d pos %d: lse %v, exact %v", pi, i, pos.LSE, ep.LSE)
			}
		}
	}
	if checked == 0 {
		t.Error("no logits compared")
	}
}

// TestEvalCommandVocabOnly: a vocab-only GGUF yields tokenize[] alone,
// identical to llama.cpp's.
func TestEvalCommandVocabOnly(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out.json")
	err := evalCmd(context.Background(), []string{
		"--model", "../../testdata/models/vocab-llama-spm.gguf",
		"--prompts", "../../testdata/prompts.txt", "--tokens", "../../testdata/toks.txt", "--out", out,
	}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	got, err := refcheck.Load(out)
	if err != nil {
		t.Fatal(err)
	}
	llama, err := refcheck.Load("../../testdata/ref/vocab-llama-spm.ref.json")
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Tokenize) == 0 || !reflect.DeepEqual(got.Tokenize, llama.Tokenize) || len(got.Prompts) != 0 {
		t.Errorf("tokenize equal %v (%d cases), %d prompts", reflect.DeepEqual(got.Tokenize, llama.Tokenize), len(got.Tokenize), len(got.Prompts))
	}
}

// TestRunCommandStreamsGreedyText: greedy `webgguf run` on the trained
// gotiny prints the pieces of the float64 reference's greedy tokens.
func TestRunCommandStreamsGreedyText(t *testing.T) {
	const model = "../../testdata/models/gotiny-q4_k_m.gguf"
	exact, err := refcheck.Load("../../testdata/ref/gotiny-q4_k_m.exact.json")
	if err != nil {
		t.Fatal(err)
	}
	p := exact.Prompts[1]
	f, err := gguf.OpenPath(model)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	tok, err := tokenizer.FromGGUF(f)
	if err != nil {
		t.Fatal(err)
	}
	var want strings.Builder
	for _, id := range p.Greedy[:16] {
		want.WriteString(tok.Piece(id, false))
	}
	escaped := strings.NewReplacer("\\", "\\\\", "\n", "\\n", "\t", "\\t").Replace(p.Prompt)
	var stdout bytes.Buffer
	if err := runCmd(context.Background(), []string{"--model", model, "--prompt", escaped, "-n", "16", "--quiet"}, &stdout, io.Discard); err != nil {
		t.Fatal(err)
	}
	if got := strings.TrimSuffix(stdout.String(), "\n"); got != want.String() {
		t.Errorf("run printed %q, want %q", got, want.String())
	}
}

// TestRunCommandJSONSchema: --json-schema makes `webgguf run` print JSON
// that the schema's constraints hold for; a schema with an unsupported
// keyword fails naming it.
func TestRunCommandJSONSchema(t *testing.T) {
	const model = "../../testdata/models/gotiny-q4_k_m.gguf"
	dir := t.TempDir()
	schema := filepath.Join(dir, "s.json")
	if err := os.WriteFile(schema, []byte(`{"type":"object","properties":{"n":{"type":"integer","minimum":1,"maximum":9},"ok":{"type":"boolean"}},"required":["n","ok"]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	var stdout bytes.Buffer
	if err := runCmd(context.Background(), []string{"--model", model, "--prompt", "func main() {", "-n", "300", "--quiet", "--json-schema", schema}, &stdout, io.Discard); err != nil {
		t.Fatal(err)
	}
	var got struct {
		N  *int
		OK *bool
	}
	if err := json.Unmarshal(stdout.Bytes(), &got); err != nil || got.N == nil || got.OK == nil || *got.N < 1 || *got.N > 9 {
		t.Fatalf("output %q: %v %+v", stdout.String(), err, got)
	}
	if err := os.WriteFile(schema, []byte(`{"type":"number","multipleOf":3}`), 0o644); err != nil {
		t.Fatal(err)
	}
	err := runCmd(context.Background(), []string{"--model", model, "--prompt", "x", "--json-schema", schema}, io.Discard, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "multipleOf") {
		t.Fatalf("got %v, want an error naming multipleOf", err)
	}
}

// TestEvalCommandJudges: --ref/--exact judge a fresh output; --in judges an
// existing file, and a doctored file fails.
func TestEvalCommandJudges(t *testing.T) {
	const name = "tiny-qwen3-q8_0"
	ref, exact := "../../testdata/ref/"+name+".ref.json", "../../testdata/ref/"+name+".exact.json"
	out := filepath.Join(t.TempDir(), "out.json")
	var log bytes.Buffer
	err := evalCmd(context.Background(), []string{"--model", "../../testdata/models/" + name + ".gguf",
		"--prompts", "../../testdata/prompts.txt", "--out", out, "--ref", ref, "--exact", exact}, &log)
	if err != nil || !strings.Contains(log.String(), "tolerance") {
		t.Fatalf("judging our output: %v\n%s", err, log.String())
	}
	f, err := refcheck.Load(out)
	if err != nil {
		t.Fatal(err)
	}
	f.Prompts[0].Positions[2].LSE += 5
	b, _ := json.Marshal(f)
	bad := filepath.Join(t.TempDir(), "bad.json")
	if err := os.WriteFile(bad, b, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := evalCmd(context.Background(), []string{"--in", bad, "--ref", ref, "--exact", exact}, io.Discard); err == nil {
		t.Error("an lse off by 5 passed")
	}
	if err := evalCmd(context.Background(), []string{"--in", out, "--ref", ref, "--exact", exact}, io.Discard); err != nil {
		t.Errorf("judging the written file again: %v", err)
	}
}
