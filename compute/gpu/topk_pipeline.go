package gpu

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"time"

	"github.com/webgguf/webgguf/compute"
	"github.com/webgguf/webgguf/webgpu"
)

// Sampled decoding with the next step encoded ahead. A sampled token is
// drawn on the host from the step's top-k candidates, so step n+1 cannot
// be submitted before step n's candidates are back (unlike greedy steps,
// whose token the GPU feeds forward: pipeline.go). What can move off the
// critical path is step n+1's encode (~400 µs natively for a hundred
// dispatches, 30-40% of a 1B model's step on an H100): PrepareTopK encodes
// it while the GPU runs step n, and SubmitTopK only writes the step
// buffer (the drawn token, the position) and submits.

var _ compute.TopKPipeliner = (*program)(nil)

// topKDepth is the top-k readback ring: the step being read plus the one
// encoded ahead of it (whose slot the encoding claims).
const topKDepth = 2

// prepared is a tape variant encoded ahead of its submit.
type prepared struct {
	enc  *webgpu.Encoded
	key  tapeKey
	cost time.Duration // host time of the encode, counted at the submit
}

func (p *program) topKKey(s *compute.Step) tapeKey {
	return tapeKey{sampler: "top_k", rows: p.rowCap(len(s.Tokens)), short: p.short(s)}
}

// PrepareTopK implements compute.TopKPipeliner.
func (p *program) PrepareTopK(ctx context.Context, s compute.Step) error {
	if err := p.checkSample(s); err != nil {
		return err
	}
	start := time.Now()
	p.releasePrepared()
	k := p.topKKey(&s)
	t, err := p.tape(k)
	if err != nil {
		return err
	}
	enc, err := t.Encode(ctx)
	if err != nil {
		return err
	}
	p.prep = &prepared{enc: enc, key: k, cost: time.Since(start)}
	return nil
}

// SubmitTopK implements compute.TopKPipeliner.
func (p *program) SubmitTopK(ctx context.Context, s compute.Step) error {
	if err := p.checkSample(s); err != nil {
		return err
	}
	for p.topRB.Pending() > 0 {
		if err := p.topRB.Read(ctx, p.small[:]); err != nil {
			return err
		}
	}
	k := p.topKKey(&s)
	pr := p.prep
	p.prep = nil
	if pr == nil || pr.key != k {
		if pr != nil {
			pr.enc.Release()
		}
		return p.submit(ctx, &s, k, false)
	}
	start := time.Now()
	if err := p.writeStep(&s); err != nil {
		pr.enc.Release()
		return err
	}
	p.fed = false
	if err := pr.enc.Submit(ctx); err != nil {
		return err
	}
	p.dispatches = p.tapes[k].dispatches
	p.b.noteStep(pr.cost+time.Since(start), p.dispatches)
	p.b.noteLast(p, &s, k)
	return nil
}

// ReadTopK implements compute.TopKPipeliner.
func (p *program) ReadTopK(ctx context.Context, ids []int32, logits []float32) error {
	k := len(ids)
	if err := checkTopK(k, len(logits), p.nVocab); err != nil {
		return err
	}
	if err := p.topRB.Read(ctx, p.small[:]); err != nil {
		return err
	}
	for i := range k {
		ids[i] = int32(binary.LittleEndian.Uint32(p.small[4*i:]))
		logits[i] = math.Float32frombits(binary.LittleEndian.Uint32(p.small[4*(maxTopK+i):]))
	}
	return nil
}

// RunTopK executes one step with one output row and writes the ids and
// logits of the len(ids) (at most MaxTopK) largest logits, best first,
// computed on the GPU. Results of earlier top-k steps not read yet are
// discarded first.
func (p *program) RunTopK(ctx context.Context, s compute.Step, ids []int32, logits []float32) error {
	if err := checkTopK(len(ids), len(logits), p.nVocab); err != nil {
		return err
	}
	if err := p.SubmitTopK(ctx, s); err != nil {
		return err
	}
	return p.ReadTopK(ctx, ids, logits)
}

// releasePrepared drops an encoding made ahead and not submitted.
func (p *program) releasePrepared() {
	if p.prep != nil {
		p.prep.enc.Release()
		p.prep = nil
	}
}

// checkTopK validates a candidate request of k ids with room for nl logits.
func checkTopK(k, nl, nVocab int) error {
	if k < 1 || k > min(maxTopK, nVocab) || nl < k {
		return fmt.Errorf("%w: top-k of %d (logits %d) outside [1, %d]", compute.ErrBadStep, k, nl, min(maxTopK, nVocab))
	}
	return nil
}
