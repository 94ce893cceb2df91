package sample

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"

	"github.com/webgguf/webgguf/gguf"
)

// TestEOGTokensMatchLlamaCpp compares EOGTokens with llama_vocab_is_eog over
// whole vocabularies, asked of llama.cpp through node-llama-cpp
// (testdata/eog-oracle.mjs).
func TestEOGTokensMatchLlamaCpp(t *testing.T) {
	if _, err := os.Stat(filepath.Join("..", "scripts", "oracle", "node_modules", "node-llama-cpp")); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("node-llama-cpp missing (run make deps): %v", err)
		}
		t.Skipf("node-llama-cpp not installed (make deps): %v", err)
	}
	models := []string{"vocab-llama3-bpe.gguf", "vocab-qwen3-bpe.gguf", "vocab-llama-spm.gguf", "gotiny-q4_k_m.gguf"}
	args := []string{filepath.Join("testdata", "eog-oracle.mjs")}
	for _, m := range models {
		args = append(args, filepath.Join("..", "testdata", "models", m))
	}
	cmd := exec.Command("node", args...)
	cmd.Stderr = nil // llama.cpp logs a harmless "missing tensor" for vocab-only files
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Wait()
	sc := bufio.NewScanner(out)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	seen := 0
	for sc.Scan() {
		var r struct {
			Path string  `json:"path"`
			N    int     `json:"n"`
			EOG  []int32 `json:"eog"`
		}
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("oracle line %q: %v", sc.Text(), err)
		}
		f, err := gguf.OpenPath(r.Path)
		if err != nil {
			t.Fatal(err)
		}
		got := EOGTokens(f)
		f.Close()
		if len(r.EOG) == 0 || !slices.Equal(got, r.EOG) {
			t.Errorf("%s: EOGTokens %v, llama.cpp %v", filepath.Base(r.Path), got, r.EOG)
		}
		seen++
	}
	if seen != len(models) {
		t.Fatalf("oracle answered for %d of %d models", seen, len(models))
	}
}
