package refcheck

import (
	"math"
	"strings"
	"testing"
)

// exactFile is a hand-made reference: one prompt, two positions over a
// vocabulary of 8, with a clear top-1 at position 0 and a near tie at 1.
func exactFile() *File {
	return &File{Prompts: []Prompt{{IDs: []int32{1, 2}, Positions: []Position{
		{Top: [][2]float64{{3, 5}, {1, 4}, {0, 3}, {2, 2}, {4, 1}}},
		{Top: [][2]float64{{6, 2}, {5, 1.99}, {0, 1}, {1, 0.5}, {2, 0.25}}},
	}}}}
}

// rows returns logit rows that reproduce exactFile's values exactly, with
// the remaining ids far below; lse fields are filled from them.
func rows(f *File) [][]float32 {
	var out [][]float32
	for i, p := range f.Prompts[0].Positions {
		row := make([]float32, 8)
		for j := range row {
			row[j] = -20 - float32(j)
		}
		for _, pair := range p.Top {
			row[int(pair[0])] = float32(pair[1])
		}
		f.Prompts[0].Positions[i].LSE = LSE(row)
		out = append(out, row)
	}
	return out
}

func TestCheckPassesExactAndCatchesErrors(t *testing.T) {
	ex := exactFile()
	good := rows(ex)
	tol := Tolerance{Logit: 0.05, LSE: 0.05}

	r := Report{Tol: tol}
	r.Check(0, ex.Prompts[0], good)
	if !r.OK() || r.Top1Checked != 1 || r.NearTies != 1 || r.MaxDev > 1e-6 {
		t.Fatalf("exact logits judged %+v", r)
	}

	// A logit off by more than the tolerance on a top-5 id fails.
	bad := [][]float32{append([]float32(nil), good[0]...), good[1]}
	bad[0][0] += 0.1
	r = Report{Tol: tol}
	r.Check(0, ex.Prompts[0], bad)
	if r.OK() || !strings.Contains(r.Failures[0], "id 0") {
		t.Errorf("shifted logit not caught: %v", r.Failures)
	}

	// Swapping a clear top-1 fails; swapping a near tie does not.
	swap := func(row []float32, a, b int) []float32 {
		c := append([]float32(nil), row...)
		c[a], c[b] = c[b], c[a]
		return c
	}
	r = Report{Tol: Tolerance{Logit: 5, LSE: 5}}
	r.Check(0, ex.Prompts[0], [][]float32{swap(good[0], 3, 1), good[1]})
	if !r.OK() || r.Top1Checked != 0 || r.NearTies != 2 {
		t.Errorf("margin 1 under tolerance 5 is a near tie: %+v", r)
	}
	r = Report{Tol: Tolerance{Logit: 1.5, LSE: 1.5}}
	r.Check(0, ex.Prompts[0], [][]float32{swap(good[0], 3, 0), good[1]})
	if r.OK() {
		t.Error("top-1 swapped past the margin not caught")
	}
	r = Report{Tol: tol}
	r.Check(0, ex.Prompts[0], [][]float32{good[0], swap(good[1], 6, 5)})
	if !r.OK() {
		t.Errorf("near-tie swap (margin 0.01 < tol) failed: %v", r.Failures)
	}
	r = Report{Tol: tol}
	r.Check(0, ex.Prompts[0], good[:1])
	if r.OK() {
		t.Error("missing position not caught")
	}
}

func TestComputeToleranceFromLlamaDeviation(t *testing.T) {
	ex := exactFile()
	rows(ex)
	llama := exactFile()
	llama.Prompts[0].Positions[0].Top[2][1] += 0.3 // id 0 off by 0.3
	llama.Prompts[0].Positions[1].Top = llama.Prompts[0].Positions[1].Top[:4]
	llama.Prompts[0].Positions[0].LSE = ex.Prompts[0].Positions[0].LSE + 0.5
	llama.Prompts[0].Positions[1].LSE = ex.Prompts[0].Positions[1].LSE
	tol, err := ComputeTolerance(llama, ex)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(tol.LlamaDev-0.3) > 1e-12 || math.Abs(tol.Logit-0.45) > 1e-12 || tol.Missing != 1 || math.Abs(tol.LSE-0.75) > 1e-12 {
		t.Errorf("tolerance %+v", tol)
	}
	// The floor applies when llama.cpp is (nearly) exact.
	tol, _ = ComputeTolerance(ex, ex)
	if tol.Logit != 0.02 {
		t.Errorf("floor: %v", tol.Logit)
	}
}

func TestGreedyNearTie(t *testing.T) {
	logits := [][]float32{{0, 1, 0.99}, {2, 0, 0}}
	if at, err := Greedy([]int32{1, 0}, logits, []int32{1, 0}, 0.05); err != nil || at != 2 {
		t.Errorf("equal: %d %v", at, err)
	}
	if at, err := Greedy([]int32{1, 0}, logits, []int32{2, 2}, 0.05); err != nil || at != 0 {
		t.Errorf("near tie: %d %v", at, err)
	}
	if _, err := Greedy([]int32{1, 0}, logits, []int32{0, 0}, 0.05); err == nil {
		t.Error("clear divergence accepted")
	}
}

// TestJudgeFilesOnLlamaCppItself judges llama.cpp's own fixture output as
// if it were ours: by construction its deviation is within 1.5× itself, so
// it passes; shifting one logit past the tolerance fails.
func TestJudgeFilesOnLlamaCppItself(t *testing.T) {
	llama, err := Load("../../testdata/ref/tiny-llama-q4_0.ref.json")
	if err != nil {
		t.Fatal(err)
	}
	exact, err := Load("../../testdata/ref/tiny-llama-q4_0.exact.json")
	if err != nil {
		t.Fatal(err)
	}
	rep, _, err := JudgeFiles(llama, llama, exact)
	if err != nil {
		t.Fatal(err)
	}
	// llama.cpp flips a few near ties relative to exact only below the
	// tolerance; everything else must pass.
	if !rep.OK() || rep.Positions == 0 || rep.Top1Checked == 0 {
		t.Fatalf("llama.cpp judged against itself: %+v", rep)
	}
	bad, _ := Load("../../testdata/ref/tiny-llama-q4_0.ref.json")
	p := &bad.Prompts[1].Positions[3]
	id := exact.Prompts[1].Positions[3].Top[0][0]
	for j := range p.Top {
		if p.Top[j][0] == id {
			p.Top[j][1] += 2 * rep.Tol.Logit
		}
	}
	rep, _, _ = JudgeFiles(bad, llama, exact)
	if rep.OK() {
		t.Error("a logit shifted by twice the tolerance passed")
	}
}
