package enginehost

import (
	"context"
	"errors"
	"math"

	"github.com/webgguf/webgguf/engine"
	"github.com/webgguf/webgguf/worker"
)

// maxEmbedInputs bounds one EmbedRequest, so that a page cannot queue an
// unbounded amount of work behind one call.
const maxEmbedInputs = 2048

// Embed returns the pooled embedding of each text (tokenized with special
// tokens, as llama.cpp's embedding tools do), normalized to unit L2 norm
// when normalize is set, concatenated, with each input's token count. A
// generative model, or an input longer than the context, is a typed error.
func (h *Host) Embed(ctx context.Context, texts []string, normalize bool) (nEmbd int, data []float32, tokens []uint32, err error) {
	if len(texts) == 0 || len(texts) > maxEmbedInputs {
		return 0, nil, nil, invalid("input: want 1 to " + itoa(maxEmbedInputs) + " texts")
	}
	release, err := h.acquire(ctx)
	if err != nil {
		return 0, nil, nil, err
	}
	defer release()
	m, err := h.model()
	if err != nil {
		return 0, nil, nil, err
	}
	m.sess.Forget() // EmbedIDs overwrites the cache from position 0
	for i, text := range texts {
		ids, err := m.tok.Encode(text, true, true)
		if err != nil {
			return 0, nil, nil, err
		}
		v, err := m.eng.EmbedIDs(ctx, ids)
		if err != nil {
			return 0, nil, nil, classifyEmbed(err, i, m)
		}
		if normalize {
			normalizeL2(v)
		}
		nEmbd = len(v)
		data = append(data, v...)
		tokens = append(tokens, uint32(len(ids)))
	}
	return nEmbd, data, tokens, nil
}

// classifyEmbed maps an embedding failure of input i to a kind the page
// can act on.
func classifyEmbed(err error, i int, m *loaded) error {
	var (
		me *engine.ModeError
		oe *engine.OptionError
		cf *engine.ContextFullError
	)
	switch {
	case errors.As(err, &me):
		return worker.NewError(KindInvalidArgument, "the loaded model gives no embeddings: load an embedding model (a pooling type)", err)
	case errors.As(err, &cf):
		return worker.NewError(KindContextFull, "input "+itoa(int64(i))+" does not fit the context ("+itoa(int64(cf.NCtx))+" tokens)", err)
	case errors.As(err, &oe):
		return worker.NewError(KindInvalidArgument, "input "+itoa(int64(i))+": "+oe.Error(), err)
	}
	if dl := classifyDeviceLost(err, m.be); dl != nil {
		return dl
	}
	return err
}

// normalizeL2 scales v to unit Euclidean norm (llama.cpp's
// common_embd_normalize, norm 2); a zero vector stays zero.
func normalizeL2(v []float32) {
	var sum float64
	for _, x := range v {
		sum += float64(x) * float64(x)
	}
	if sum == 0 {
		return
	}
	s := 1 / math.Sqrt(sum)
	for i := range v {
		v[i] = float32(float64(v[i]) * s)
	}
}

// Rerank scores each document against query with the loaded reranker
// (engine.Rerank: raw classifier scores), with each pair's token count.
// A model without rank pooling is invalid-argument.
func (h *Host) Rerank(ctx context.Context, query string, docs []string) (scores []float32, tokens []uint32, err error) {
	if len(docs) == 0 || len(docs) > maxEmbedInputs {
		return nil, nil, invalid("documents: want 1 to " + itoa(maxEmbedInputs) + " texts")
	}
	release, err := h.acquire(ctx)
	if err != nil {
		return nil, nil, err
	}
	defer release()
	m, err := h.model()
	if err != nil {
		return nil, nil, err
	}
	m.sess.Forget() // EmbedIDs overwrites the cache from position 0
	for i, doc := range docs {
		ids, err := m.eng.RerankTokens(query, doc)
		if err != nil {
			return nil, nil, classifyRerank(err, i, m)
		}
		v, err := m.eng.EmbedIDs(ctx, ids)
		if err != nil {
			return nil, nil, classifyRerank(err, i, m)
		}
		scores = append(scores, v[0])
		tokens = append(tokens, uint32(len(ids)))
	}
	return scores, tokens, nil
}

// classifyRerank is classifyEmbed for a reranking call.
func classifyRerank(err error, i int, m *loaded) error {
	var me *engine.ModeError
	if errors.As(err, &me) {
		return worker.NewError(KindInvalidArgument, "the loaded model is not a reranker (rank pooling)", err)
	}
	return classifyEmbed(err, i, m)
}
