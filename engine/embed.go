package engine

import (
	"context"
	"fmt"

	"github.com/webgguf/webgguf/compute"
	"github.com/webgguf/webgguf/model"
	"github.com/webgguf/webgguf/tokenizer"
)

// Embed tokenizes text with special tokens ([CLS]/[SEP] for WordPiece, BOS
// as the vocabulary asks otherwise) and returns its pooled embedding, as
// EmbedIDs does.
func (e *Engine) Embed(ctx context.Context, text string) ([]float32, error) {
	if e.tok == nil {
		return nil, e.tokErr
	}
	ids, err := e.tok.Encode(text, true, true)
	if err != nil {
		return nil, err
	}
	return e.EmbedIDs(ctx, ids)
}

// EmbedIDs evaluates ids as one sequence from position 0 (the cache is
// reset first) and returns the sequence embedding as llama.cpp's
// llama_get_embeddings_seq returns it: pooled by the model's pooling type
// (mean over the tokens, the first token's or the last token's hidden
// state) and not normalized; with rank pooling, the classifier's raw
// scores for the first token ([CLS]). The sequence must fit one
// micro-batch (NUbatch, the context by default for a non-causal model). A
// generative model gives a *ModeError, pooling type none an *OptionError.
func (e *Engine) EmbedIDs(ctx context.Context, ids []int32) ([]float32, error) {
	if !e.cfg.Embeddings {
		return nil, &ModeError{Arch: e.cfg.Arch, Want: "embeddings"}
	}
	switch e.cfg.Pooling {
	case model.PoolingMean, model.PoolingCLS, model.PoolingLast, model.PoolingRank:
	default:
		return nil, &OptionError{"pooling", fmt.Sprintf("%s: the model gives no sequence embedding", e.cfg.Pooling)}
	}
	if len(ids) == 0 {
		return nil, &OptionError{"ids", "empty: an embedding needs at least one token"}
	}
	if len(ids) > e.nUbatch {
		return nil, &ContextFullError{NCtx: e.nUbatch, Pos: 0, Need: len(ids)}
	}
	e.Reset()
	rows := make([]int32, len(ids))
	for i := range rows {
		rows[i] = int32(i)
	}
	if e.cfg.Pooling == model.PoolingRank {
		rows = rows[:1] // the classifier reads [CLS]
	}
	prog := e.prefill
	if len(ids) == 1 {
		prog = e.decode
	}
	if err := prog.Run(ctx, compute.Step{Pos0: 0, Tokens: ids, OutRows: rows}, e.logits); err != nil {
		return nil, err
	}
	n := e.outWidth
	out := make([]float32, n)
	switch e.cfg.Pooling {
	case model.PoolingMean:
		// Summed in float64, then scaled by 1/n in f32 as ggml's mean
		// matrix does.
		sum := make([]float64, n)
		for r := range ids {
			for j, v := range e.logits[r*n : (r+1)*n] {
				sum[j] += float64(v)
			}
		}
		for j := range out {
			out[j] = float32(sum[j] / float64(len(ids)))
		}
	case model.PoolingCLS, model.PoolingRank:
		copy(out, e.logits[:n])
	case model.PoolingLast:
		copy(out, e.logits[(len(ids)-1)*n:len(ids)*n])
	}
	return out, nil
}

// Rerank scores each document against query with a reranker (rank
// pooling): the pair is RerankTokens, and the score is the classifier's
// first raw output (a logit, as llama.cpp's server reports it;
// node-llama-cpp reports sigmoid(score) as the relevance probability). A
// model without rank pooling gives a *ModeError.
func (e *Engine) Rerank(ctx context.Context, query string, documents []string) ([]float32, error) {
	scores := make([]float32, len(documents))
	for i, doc := range documents {
		ids, err := e.RerankTokens(query, doc)
		if err != nil {
			return nil, err
		}
		v, err := e.EmbedIDs(ctx, ids)
		if err != nil {
			return nil, err
		}
		scores[i] = v[0]
	}
	return scores, nil
}

// RerankTokens is the token sequence Rerank evaluates for one pair, as
// llama.cpp's server builds it (format_prompt_rerank): BOS if the
// vocabulary adds it, the query, EOS (SEP without one) if it adds EOS,
// SEP if it adds SEP, the document, EOS again if it adds EOS. A model
// without rank pooling gives a *ModeError.
func (e *Engine) RerankTokens(query, document string) ([]int32, error) {
	if !e.cfg.Embeddings || e.cfg.Pooling != model.PoolingRank {
		return nil, &ModeError{Arch: e.cfg.Arch, Want: "rank"}
	}
	if e.tok == nil {
		return nil, e.tokErr
	}
	q, err := e.tok.Encode(query, false, false)
	if err != nil {
		return nil, err
	}
	d, err := e.tok.Encode(document, false, false)
	if err != nil {
		return nil, err
	}
	eos := e.tok.EOS()
	if eos == tokenizer.NoToken {
		eos = e.tok.SEP()
	}
	var ids []int32
	if e.tok.AddBOS() && e.tok.BOS() != tokenizer.NoToken {
		ids = append(ids, e.tok.BOS())
	}
	ids = append(ids, q...)
	if e.tok.AddEOS() && eos != tokenizer.NoToken {
		ids = append(ids, eos)
	}
	if e.tok.AddSEP() && e.tok.SEP() != tokenizer.NoToken {
		ids = append(ids, e.tok.SEP())
	}
	ids = append(ids, d...)
	if e.tok.AddEOS() && eos != tokenizer.NoToken {
		ids = append(ids, eos)
	}
	return ids, nil
}
