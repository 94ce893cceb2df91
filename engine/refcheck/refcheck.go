// Package refcheck judges an engine's logits against llama.cpp's fixtures
// by the rule of testdata/FIXTURES.md, for every backend alike:
//
//   - tolerance = max(0.02, 1.5 × llama.cpp's own maximum deviation from the
//     float64 reference (NAME.exact.json) over the exact top-5 ids);
//   - our logits on the exact top-5 ids lie within the tolerance;
//   - our top-1 equals the exact top-1 wherever the exact margin between
//     the first two exceeds the tolerance;
//   - our log-sum-exp lies within max(tolerance, 1.5 × llama.cpp's lse
//     deviation).
package refcheck

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
)

// File is the schema of testdata/ref/NAME.{ref,exact}.json, which
// `webgguf eval` also writes.
type File struct {
	Model    string     `json:"model"`
	NVocab   int        `json:"n_vocab,omitempty"`
	TopK     int        `json:"topk,omitempty"`
	Source   string     `json:"source,omitempty"`
	Tokenize []Tokenize `json:"tokenize,omitempty"`
	Prompts  []Prompt   `json:"prompts,omitempty"`
}

// Tokenize is one tokenizer case.
type Tokenize struct {
	Text         string  `json:"text"`
	AddSpecial   bool    `json:"add_special"`
	ParseSpecial bool    `json:"parse_special"`
	IDs          []int32 `json:"ids"`
}

// Prompt is one teacher-forced prompt and its greedy continuation.
type Prompt struct {
	Prompt     string     `json:"prompt"`
	IDs        []int32    `json:"ids"`
	Positions  []Position `json:"positions"`
	Greedy     []int32    `json:"greedy,omitempty"`
	GreedyText string     `json:"greedy_text,omitempty"`
}

// Position holds the logits summary after one token: the log-sum-exp of
// the full row and the top pairs [id, logit], best first.
type Position struct {
	LSE float64      `json:"lse"`
	Top [][2]float64 `json:"top"`
}

// Load reads a reference file.
func Load(path string) (*File, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var f File
	if err := json.Unmarshal(b, &f); err != nil {
		return nil, fmt.Errorf("refcheck: %s: %w", path, err)
	}
	return &f, nil
}

// Summarize turns a row of logits into a Position with the top k pairs.
func Summarize(logits []float32, k int) Position {
	p := Position{LSE: LSE(logits)}
	idx := topK(logits, k)
	for _, i := range idx {
		p.Top = append(p.Top, [2]float64{float64(i), float64(logits[i])})
	}
	return p
}

// LSE is log Σ exp(x), in float64.
func LSE(x []float32) float64 {
	mx := math.Inf(-1)
	for _, v := range x {
		mx = math.Max(mx, float64(v))
	}
	var s float64
	for _, v := range x {
		s += math.Exp(float64(v) - mx)
	}
	return mx + math.Log(s)
}

// topK returns the indices of the k largest values, best first (lower id
// first among equals).
func topK(x []float32, k int) []int {
	k = min(k, len(x))
	var idx []int
	for i, v := range x {
		j := len(idx)
		for j > 0 && v > x[idx[j-1]] {
			j--
		}
		if j < k {
			idx = append(idx, 0)
			copy(idx[j+1:], idx[j:])
			idx[j] = i
			if len(idx) > k {
				idx = idx[:k]
			}
		}
	}
	return idx
}

// Summarize64 is Summarize for a float64 row (a float64 reference or an
// oracle's dense logits).
func Summarize64(logits []float64, k int) Position {
	mx := math.Inf(-1)
	for _, v := range logits {
		mx = math.Max(mx, v)
	}
	var s float64
	for _, v := range logits {
		s += math.Exp(v - mx)
	}
	p := Position{LSE: mx + math.Log(s)}
	f := make([]float32, len(logits))
	for i, v := range logits {
		f[i] = float32(v)
	}
	for _, i := range topK(f, k) {
		p.Top = append(p.Top, [2]float64{float64(i), logits[i]})
	}
	return p
}
