package refcheck

import (
	"fmt"
	"math"
)

// TopN is how many exact top ids are checked.
const TopN = 5

// Tolerance is the judging tolerance for one model.
type Tolerance struct {
	Logit    float64 // max(0.02, 1.5 × LlamaDev)
	LSE      float64 // max(Logit, 1.5 × LlamaLSEDev)
	LlamaDev float64 // llama.cpp's max |logit − exact| over exact top-5 ids
	// LlamaLSEDev is llama.cpp's max |lse − exact lse|.
	LlamaLSEDev float64
	// Missing counts exact top-5 ids absent from llama.cpp's top list
	// (their deviation is unknown and not counted).
	Missing int
}

// ComputeTolerance derives the tolerance from llama.cpp's reference and
// the float64 reference of the same model.
func ComputeTolerance(llama, exact *File) (Tolerance, error) {
	var t Tolerance
	if len(llama.Prompts) != len(exact.Prompts) {
		return t, fmt.Errorf("refcheck: %d llama.cpp prompts, %d exact", len(llama.Prompts), len(exact.Prompts))
	}
	for pi, ep := range exact.Prompts {
		lp := llama.Prompts[pi]
		if len(lp.Positions) != len(ep.Positions) {
			return t, fmt.Errorf("refcheck: prompt %d: %d llama.cpp positions, %d exact", pi, len(lp.Positions), len(ep.Positions))
		}
		for i, e := range ep.Positions {
			l := lp.Positions[i]
			t.LlamaLSEDev = math.Max(t.LlamaLSEDev, math.Abs(l.LSE-e.LSE))
			for _, pair := range e.Top[:min(TopN, len(e.Top))] {
				v, ok := lookup(l.Top, int(pair[0]))
				if !ok {
					t.Missing++
					continue
				}
				t.LlamaDev = math.Max(t.LlamaDev, math.Abs(v-pair[1]))
			}
		}
	}
	t.Logit = math.Max(0.02, 1.5*t.LlamaDev)
	t.LSE = math.Max(t.Logit, 1.5*t.LlamaLSEDev)
	return t, nil
}

func lookup(top [][2]float64, id int) (float64, bool) {
	for _, p := range top {
		if int(p[0]) == id {
			return p[1], true
		}
	}
	return 0, false
}

// Report accumulates the judgement of one model.
type Report struct {
	Tol       Tolerance
	Positions int
	MaxDev    float64 // our max |logit − exact| over exact top-5 ids
	MaxLSEDev float64
	// Top1Checked counts positions whose exact margin exceeds the
	// tolerance; Top1Equal those where our top-1 matched there.
	Top1Checked, Top1Equal int
	// NearTies counts positions whose exact margin is within tolerance.
	NearTies int
	Failures []string
}

// OK reports whether nothing failed.
func (r *Report) OK() bool { return len(r.Failures) == 0 }

func (r *Report) fail(format string, args ...any) {
	if len(r.Failures) < 20 {
		r.Failures = append(r.Failures, fmt.Sprintf(format, args...))
	}
}

// Check judges our teacher-forced logits for one prompt (one row per
// position) against the exact reference.
func (r *Report) Check(pi int, exact Prompt, logits [][]float32) {
	if len(logits) != len(exact.Positions) {
		r.fail("prompt %d: %d rows of logits, want %d", pi, len(logits), len(exact.Positions))
		return
	}
	for i, e := range exact.Positions {
		row := logits[i]
		r.Positions++
		for _, pair := range e.Top[:min(TopN, len(e.Top))] {
			id := int(pair[0])
			if id < 0 || id >= len(row) {
				r.fail("prompt %d pos %d: exact id %d outside %d logits", pi, i, id, len(row))
				continue
			}
			d := math.Abs(float64(row[id]) - pair[1])
			r.MaxDev = math.Max(r.MaxDev, d)
			if d > r.Tol.Logit {
				r.fail("prompt %d pos %d: logit of id %d = %.5f, exact %.5f (|Δ| %.4f > tol %.4f)", pi, i, id, row[id], pair[1], d, r.Tol.Logit)
			}
		}
		ld := math.Abs(LSE(row) - e.LSE)
		r.MaxLSEDev = math.Max(r.MaxLSEDev, ld)
		if ld > r.Tol.LSE {
			r.fail("prompt %d pos %d: lse %.5f, exact %.5f (|Δ| %.4f > tol %.4f)", pi, i, LSE(row), e.LSE, ld, r.Tol.LSE)
		}
		if len(e.Top) < 2 {
			continue
		}
		if margin := e.Top[0][1] - e.Top[1][1]; margin > r.Tol.Logit {
			r.Top1Checked++
			if top := argmax(row); top == int(e.Top[0][0]) {
				r.Top1Equal++
			} else {
				r.fail("prompt %d pos %d: top-1 %d, exact %d (exact margin %.4f > tol %.4f)", pi, i, top, int(e.Top[0][0]), margin, r.Tol.Logit)
			}
		} else {
			r.NearTies++
		}
	}
}

// Greedy compares our greedy continuation got (with ours[i] the logits
// each token was drawn from) with want. The continuations must be equal up
// to the first divergence, and there the two candidates must be a near tie
// under our own logits (|Δ| ≤ tol): after it, the texts legitimately
// differ. It returns the index of the first divergence (len(want) if none)
// and an error if the divergence is not a near tie.
func Greedy(got []int32, ours [][]float32, want []int32, tol float64) (int, error) {
	for i := range want {
		if i >= len(got) {
			return i, fmt.Errorf("refcheck: greedy stopped after %d of %d tokens", len(got), len(want))
		}
		if got[i] == want[i] {
			continue
		}
		row := ours[i]
		w := int(want[i])
		if w < 0 || w >= len(row) {
			return i, fmt.Errorf("refcheck: greedy step %d: reference token %d outside %d logits", i, w, len(row))
		}
		gap := float64(row[got[i]] - row[w])
		if gap > tol {
			return i, fmt.Errorf("refcheck: greedy step %d: we chose %d, reference %d, by a margin %.4f > tol %.4f", i, got[i], w, gap, tol)
		}
		return i, nil
	}
	return len(want), nil
}

func argmax(x []float32) int {
	best := 0
	for i, v := range x {
		if v > x[best] {
			best = i
		}
	}
	return best
}

// CheckSummary judges one prompt from summaries alone (an eval JSON's top
// pairs and lse, e.g. written by another backend or the browser): each of
// the exact top-5 ids must appear in our top list within the tolerance
// (an id missing from it counts as a failure), our lse must be within the
// lse tolerance, and our top-1 must equal the exact one wherever the exact
// margin exceeds the tolerance.
func (r *Report) CheckSummary(pi int, exact, ours Prompt) {
	if len(ours.Positions) != len(exact.Positions) {
		r.fail("prompt %d: %d positions, want %d", pi, len(ours.Positions), len(exact.Positions))
		return
	}
	if len(ours.IDs) != len(exact.IDs) {
		r.fail("prompt %d: %d ids, want %d", pi, len(ours.IDs), len(exact.IDs))
		return
	}
	for i, id := range exact.IDs {
		if ours.IDs[i] != id {
			r.fail("prompt %d: id %d at %d, want %d", pi, ours.IDs[i], i, id)
			return
		}
	}
	for i, e := range exact.Positions {
		o := ours.Positions[i]
		r.Positions++
		for _, pair := range e.Top[:min(TopN, len(e.Top))] {
			v, ok := lookup(o.Top, int(pair[0]))
			if !ok {
				r.fail("prompt %d pos %d: exact top id %d not in our top %d", pi, i, int(pair[0]), len(o.Top))
				continue
			}
			d := math.Abs(v - pair[1])
			r.MaxDev = math.Max(r.MaxDev, d)
			if d > r.Tol.Logit {
				r.fail("prompt %d pos %d: logit of id %d = %.5f, exact %.5f (|Δ| %.4f > tol %.4f)", pi, i, int(pair[0]), v, pair[1], d, r.Tol.Logit)
			}
		}
		ld := math.Abs(o.LSE - e.LSE)
		r.MaxLSEDev = math.Max(r.MaxLSEDev, ld)
		if ld > r.Tol.LSE {
			r.fail("prompt %d pos %d: lse %.5f, exact %.5f (|Δ| %.4f > tol %.4f)", pi, i, o.LSE, e.LSE, ld, r.Tol.LSE)
		}
		if len(e.Top) < 2 || len(o.Top) == 0 {
			continue
		}
		if margin := e.Top[0][1] - e.Top[1][1]; margin > r.Tol.Logit {
			r.Top1Checked++
			if o.Top[0][0] == e.Top[0][0] {
				r.Top1Equal++
			} else {
				r.fail("prompt %d pos %d: top-1 %d, exact %d (exact margin %.4f > tol %.4f)", pi, i, int(o.Top[0][0]), int(e.Top[0][0]), margin, r.Tol.Logit)
			}
		} else {
			r.NearTies++
		}
	}
}

// JudgeFiles judges an eval output file (ours) against llama.cpp's
// reference and the float64 reference of the same model by the fixtures'
// rule, from the summaries in the files. Greedy continuations cannot be
// judged at near ties without our logits; GreedyDiverge reports, per
// prompt, where ours first differs from the float64 greedy (len if never).
func JudgeFiles(ours, llama, exact *File) (rep Report, greedyDiverge []int, err error) {
	tol, err := ComputeTolerance(llama, exact)
	if err != nil {
		return rep, nil, err
	}
	rep.Tol = tol
	if len(ours.Prompts) != len(exact.Prompts) {
		return rep, nil, fmt.Errorf("refcheck: %d prompts, reference has %d", len(ours.Prompts), len(exact.Prompts))
	}
	for pi, e := range exact.Prompts {
		rep.CheckSummary(pi, e, ours.Prompts[pi])
		g := ours.Prompts[pi].Greedy
		at := 0
		for at < min(len(g), len(e.Greedy)) && g[at] == e.Greedy[at] {
			at++
		}
		greedyDiverge = append(greedyDiverge, at)
	}
	return rep, greedyDiverge, nil
}
