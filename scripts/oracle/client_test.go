package oracle

import (
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestClientAgainstFixtures checks the oracle end to end against
// llama.cpp's own fixture (testdata/ref/vocab-llama-spm.ref.json):
// "Hello world" is [15043, 3186], and BOS is prepended on request.
func TestClientAgainstFixtures(t *testing.T) {
	root, _ := filepath.Abs("../..")
	c, err := Start(root)
	if errors.Is(err, ErrNotInstalled) {
		t.Fatalf("%v (make deps installs it)", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	m, err := c.Load("testdata/models/vocab-llama-spm.gguf", true)
	if err != nil {
		t.Fatal(err)
	}
	ids, err := c.Tokenize(m, "Hello world", false, false)
	if err != nil || !slices.Equal(ids, []int32{15043, 3186}) {
		t.Fatalf("Tokenize = %v, %v", ids, err)
	}
	ids, err = c.Tokenize(m, "Hello world", true, true)
	if err != nil || !slices.Equal(ids, []int32{1, 15043, 3186}) {
		t.Fatalf("Tokenize(add) = %v, %v", ids, err)
	}
	text, err := c.Detokenize(m, []int32{15043, 3186}, false)
	if err != nil || text != "Hello world" {
		t.Fatalf("Detokenize = %q, %v", text, err)
	}
	if _, err := c.Logits(m, ids, false); err == nil {
		t.Fatal("logits on a vocab-only model did not fail")
	}
}

// TestClientLogitsAgainstFixture compares teacher-forced logits and greedy
// tokens with libllama's dump in testdata/ref/tiny-llama-q8_0.ref.json. The
// builds differ (CPU kernels, 8-bit activation rounding), so logits on the
// fixture's top-5 ids may differ by the fixture README's ~0.5 bound; the
// top-1 ids and the greedy continuation must be identical.
func TestClientLogitsAgainstFixture(t *testing.T) {
	raw, err := os.ReadFile("../../testdata/ref/tiny-llama-q8_0.ref.json")
	if err != nil {
		t.Fatal(err)
	}
	var ref struct {
		Prompts []struct {
			IDs       []int32 `json:"ids"`
			Positions []struct {
				Top [][2]float64 `json:"top"`
			} `json:"positions"`
			Greedy []int32 `json:"greedy"`
		} `json:"prompts"`
	}
	if err := json.Unmarshal(raw, &ref); err != nil || len(ref.Prompts) == 0 {
		t.Fatalf("fixture: %v", err)
	}
	root, _ := filepath.Abs("../..")
	c, err := Start(root)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	m, err := c.Load("testdata/models/tiny-llama-q8_0.gguf", false)
	if err != nil {
		t.Fatal(err)
	}
	p := ref.Prompts[0]
	rows, err := c.Logits(m, p.IDs, true)
	if err != nil || len(rows) != len(p.Positions) {
		t.Fatalf("%d rows, %v", len(rows), err)
	}
	for i, pos := range p.Positions {
		best := 0
		for id, l := range rows[i] {
			if l > rows[i][best] {
				best = id
			}
		}
		if best != int(pos.Top[0][0]) {
			t.Errorf("position %d: top-1 %d, libllama %v", i, best, pos.Top[0][0])
		}
		for _, e := range pos.Top[:5] {
			if d := math.Abs(rows[i][int(e[0])] - e[1]); d > 0.5 {
				t.Errorf("position %d id %v: logit %v vs %v", i, e[0], rows[i][int(e[0])], e[1])
			}
		}
	}
	got, err := c.Generate(m, p.IDs, len(p.Greedy))
	if err != nil || !slices.Equal(got, p.Greedy[:len(got)]) || len(got) == 0 {
		t.Fatalf("greedy %v (%v), libllama %v", got, err, p.Greedy)
	}
}
