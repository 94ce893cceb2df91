package engine

import (
	"context"
	"fmt"

	"github.com/webgguf/webgguf/compute"
)

// LogitsMode selects which positions' logits Eval returns.
type LogitsMode uint8

// Logits modes.
const (
	// LogitsLast returns the logits after the last token only.
	LogitsLast LogitsMode = iota
	// LogitsAll returns the logits after every token (teacher forcing).
	LogitsAll
	// LogitsNone returns nothing (prefill only).
	LogitsNone
)

// Eval appends ids to the context and returns the requested logits, one
// slice of n_vocab values per returned position. Prefill runs in
// micro-batches of NUbatch (of 32 when every position's logits are wanted);
// single tokens use the decode graph. If ctx is
// cancelled midway, the cache keeps the micro-batches already evaluated.
func (e *Engine) Eval(ctx context.Context, ids []int32, mode LogitsMode) ([][]float32, error) {
	if e.cfg.Embeddings {
		return nil, &ModeError{Arch: e.cfg.Arch, Want: "logits"}
	}
	if len(ids) == 0 {
		return nil, nil
	}
	if e.pos+len(ids) > e.nCtx {
		return nil, &ContextFullError{NCtx: e.nCtx, Pos: e.pos, Need: len(ids)}
	}
	nv := e.cfg.NVocab
	for i, id := range ids {
		if id < 0 || int(id) >= nv {
			return nil, fmt.Errorf("%w: token %d at index %d outside vocabulary %d", compute.ErrBadStep, id, i, nv)
		}
	}
	var out [][]float32
	rows := make([]int32, 0, e.nUbatch)
	step := e.nUbatch
	if mode == LogitsAll {
		step = e.outMax
	}
	for start := 0; start < len(ids); start += step {
		chunk := ids[start:min(start+step, len(ids))]
		last := start+len(chunk) == len(ids)
		rows = rows[:0]
		switch {
		case mode == LogitsAll:
			for i := range chunk {
				rows = append(rows, int32(i))
			}
		case mode == LogitsLast && last:
			rows = append(rows, int32(len(chunk)-1))
		}
		prog := e.prefill
		if len(chunk) == 1 {
			prog = e.decode
		}
		s := compute.Step{Pos0: e.pos, Tokens: chunk, OutRows: rows}
		if err := prog.Run(ctx, s, e.logits); err != nil {
			return out, err
		}
		e.pos += len(chunk)
		for r := range rows {
			out = append(out, append([]float32(nil), e.logits[r*nv:(r+1)*nv]...))
		}
	}
	return out, nil
}

// EvalArgmax appends ids to the context like Eval and returns the greedy
// next token (the argmax of the last position's logits), picked by the
// backend where it can (compute.ArgmaxProgram) so only the id comes back.
func (e *Engine) EvalArgmax(ctx context.Context, ids []int32) (int32, error) {
	if e.cfg.Embeddings {
		return -1, &ModeError{Arch: e.cfg.Arch, Want: "logits"}
	}
	if len(ids) == 0 {
		return -1, &OptionError{"ids", "empty"}
	}
	if len(ids) > 1 {
		if _, err := e.Eval(ctx, ids[:len(ids)-1], LogitsNone); err != nil {
			return -1, err
		}
	}
	last := ids[len(ids)-1:]
	if ap, ok := e.decode.(compute.ArgmaxProgram); ok {
		if e.pos+1 > e.nCtx {
			return -1, &ContextFullError{NCtx: e.nCtx, Pos: e.pos, Need: 1}
		}
		if last[0] < 0 || int(last[0]) >= e.cfg.NVocab {
			return -1, fmt.Errorf("%w: token %d outside vocabulary %d", compute.ErrBadStep, last[0], e.cfg.NVocab)
		}
		tok, err := ap.RunArgmax(ctx, compute.Step{Pos0: e.pos, Tokens: last, OutRows: []int32{0}})
		if err != nil {
			return -1, err
		}
		e.pos++
		return tok, nil
	}
	logits, err := e.Eval(ctx, last, LogitsLast)
	if err != nil {
		return -1, err
	}
	return int32(Argmax(logits[0])), nil
}

// EvalTopK appends ids to the context like Eval and writes the len(cids)
// largest logits after the last token and their ids, best first (the lower
// id first among equals), selected by the backend (compute.TopKProgram) so
// only those come back. len(cids) must be 1..the program's MaxTopK, and
// clogits as long; backends without the capability give an *OptionError.
func (e *Engine) EvalTopK(ctx context.Context, ids []int32, cids []int32, clogits []float32) error {
	if e.cfg.Embeddings {
		return &ModeError{Arch: e.cfg.Arch, Want: "logits"}
	}
	tp, ok := e.decode.(compute.TopKProgram)
	if !ok {
		return &OptionError{"backend", e.be.Name() + " has no top-k selection"}
	}
	if k := len(cids); k < 1 || k > tp.MaxTopK() || len(clogits) != k {
		return &OptionError{"cids", fmt.Sprintf("%d candidates (%d logits): want 1 to %d, one logit each", len(cids), len(clogits), tp.MaxTopK())}
	}
	if len(ids) == 0 {
		return &OptionError{"ids", "empty"}
	}
	if len(ids) > 1 {
		if _, err := e.Eval(ctx, ids[:len(ids)-1], LogitsNone); err != nil {
			return err
		}
	}
	last := ids[len(ids)-1:]
	if e.pos+1 > e.nCtx {
		return &ContextFullError{NCtx: e.nCtx, Pos: e.pos, Need: 1}
	}
	if last[0] < 0 || int(last[0]) >= e.cfg.NVocab {
		return fmt.Errorf("%w: token %d outside vocabulary %d", compute.ErrBadStep, last[0], e.cfg.NVocab)
	}
	if err := tp.RunTopK(ctx, compute.Step{Pos0: e.pos, Tokens: last, OutRows: []int32{0}}, cids, clogits); err != nil {
		return err
	}
	e.pos++
	return nil
}
