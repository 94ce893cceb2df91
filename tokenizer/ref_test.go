package tokenizer

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/webgguf/webgguf/gguf"
)

// refFile is the part of testdata/ref/*.ref.json (dumped from libllama)
// that concerns tokenization.
type refFile struct {
	Tokenize []struct {
		Text         string  `json:"text"`
		AddSpecial   bool    `json:"add_special"`
		ParseSpecial bool    `json:"parse_special"`
		IDs          []int32 `json:"ids"`
	} `json:"tokenize"`
	Prompts []struct {
		Prompt string  `json:"prompt"`
		IDs    []int32 `json:"ids"`
	} `json:"prompts"`
}

func loadTokenizer(t testing.TB, model string) *Tokenizer {
	t.Helper()
	f, err := gguf.OpenPath(filepath.Join("..", "testdata", "models", model+".gguf"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	tok, err := FromGGUF(f)
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// TestLlamaCppFixtures checks every tokenization vector in the llama.cpp
// fixtures: the vocab refs' tokenize[] and every model ref's tokenize[] and
// prompts[].ids (BOS as the model asks, special tokens parsed).
func TestLlamaCppFixtures(t *testing.T) {
	refs, err := filepath.Glob(filepath.Join("..", "testdata", "ref", "*.ref.json"))
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, path := range refs {
		name := strings.TrimSuffix(filepath.Base(path), ".ref.json")
		if _, err := os.Stat(filepath.Join("..", "testdata", "models", name+".gguf")); err != nil {
			continue // dequant.ref.json and friends
		}
		t.Run(name, func(t *testing.T) {
			raw, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			var ref refFile
			if err := json.Unmarshal(raw, &ref); err != nil {
				t.Fatal(err)
			}
			if len(ref.Tokenize)+len(ref.Prompts) == 0 {
				t.Fatal("fixture has no tokenization vectors")
			}
			tok := loadTokenizer(t, name)
			for _, c := range ref.Tokenize {
				got, err := tok.Encode(c.Text, c.AddSpecial, c.ParseSpecial)
				if err != nil {
					t.Fatalf("Encode(%q): %v", c.Text, err)
				}
				if !slices.Equal(got, c.IDs) && !(len(got) == 0 && len(c.IDs) == 0) {
					t.Errorf("Encode(%q, add=%v, parse=%v)\n got %v\nwant %v", c.Text, c.AddSpecial, c.ParseSpecial, got, c.IDs)
				}
				checked++
			}
			for _, p := range ref.Prompts {
				got, err := tok.Encode(p.Prompt, true, true)
				if err != nil {
					t.Fatalf("Encode(%q): %v", p.Prompt, err)
				}
				if !slices.Equal(got, p.IDs) {
					t.Errorf("prompt %q\n got %v\nwant %v", p.Prompt, got, p.IDs)
				}
				checked++
			}
		})
	}
	if checked < 100 {
		t.Fatalf("only %d vectors checked", checked)
	}
}
