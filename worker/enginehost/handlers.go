package enginehost

import (
	"context"

	"github.com/webgguf/webgguf/glue"
	"github.com/webgguf/webgguf/worker"
)

// Register serves h's requests on m.
func Register(m *worker.Mux, h *Host) {
	worker.HandleOn(m, func(ctx context.Context, req *glue.ModelLoadRequest, s *worker.Stream) (*glue.ModelInfo, error) {
		last := int64(-1)
		o := LoadOptions{Name: req.Name, NCtx: int(req.NCtx), Backend: req.Backend,
			Progress: func(done, total int64) {
				// One event per percent at most: a progress bar needs no more.
				if pct := done * 100 / max(total, 1); pct != last {
					last = pct
					_ = s.Progress("upload", done, total)
				}
			},
			Warn:  func(msg string) { _ = s.Log(4, msg) },
			Debug: func(msg string) { _ = s.Log(-4, msg) },
		}
		return h.loadRequest(ctx, req, o)
	})
	worker.HandleOn(m, func(ctx context.Context, _ *glue.InfoRequest, _ *worker.Stream) (*glue.ModelInfo, error) {
		return h.Info(ctx)
	})
	worker.HandleOn(m, func(ctx context.Context, req *glue.TokenizeRequest, _ *worker.Stream) (*glue.Tokens, error) {
		ids, err := h.Tokenize(ctx, req.Text, req.AddSpecial, req.ParseSpecial)
		if err != nil {
			return nil, err
		}
		return &glue.Tokens{Ids: ids}, nil
	})
	worker.HandleOn(m, func(ctx context.Context, req *glue.EmbedRequest, _ *worker.Stream) (*glue.EmbedResponse, error) {
		n, data, tokens, err := h.Embed(ctx, req.Inputs, req.Normalize)
		if err != nil {
			return nil, err
		}
		return &glue.EmbedResponse{NEmbd: uint32(n), Data: data, Tokens: tokens}, nil
	})
	worker.HandleOn(m, func(ctx context.Context, req *glue.RerankRequest, _ *worker.Stream) (*glue.RerankResponse, error) {
		scores, tokens, err := h.Rerank(ctx, req.Query, req.Documents)
		if err != nil {
			return nil, err
		}
		return &glue.RerankResponse{Scores: scores, Tokens: tokens}, nil
	})
	worker.HandleOn(m, func(ctx context.Context, req *glue.DetokenizeRequest, _ *worker.Stream) (*glue.Text, error) {
		text, err := h.Detokenize(ctx, req.Ids, req.Special)
		if err != nil {
			return nil, err
		}
		return &glue.Text{Text: text}, nil
	})
	worker.HandleOn(m, func(ctx context.Context, req *glue.ChatTemplateRequest, _ *worker.Stream) (*glue.Text, error) {
		msgs, err := messages(req.Roles, req.Contents)
		if err != nil {
			return nil, err
		}
		text, err := h.ApplyChatTemplate(ctx, msgs, req.AddGenerationPrompt, req.Template)
		if err != nil {
			return nil, err
		}
		return &glue.Text{Text: text}, nil
	})
	worker.HandleOn(m, func(ctx context.Context, req *glue.GenerateRequest, s *worker.Stream) (*glue.GenerateResponse, error) {
		r, err := requestFrom(req)
		if err != nil {
			return nil, err
		}
		resp, err := h.Generate(ctx, r, func(id int32, text string) error {
			return s.Send(&glue.TokenEvent{Id: id, Text: text})
		})
		if err == nil {
			if p := h.profileLast(ctx); p != "" {
				_ = s.Log(-4, p)
			}
		}
		return resp, err
	})
	worker.HandleOn(m, func(ctx context.Context, req *glue.SessionSaveRequest, _ *worker.Stream) (*glue.SessionData, error) {
		return h.SaveSession(ctx, req.Meta)
	})
	worker.HandleOn(m, func(ctx context.Context, req *glue.SessionRestoreRequest, _ *worker.Stream) (*glue.SessionRestored, error) {
		return h.RestoreSession(ctx, req.Data)
	})
	worker.HandleOn(m, func(ctx context.Context, _ *glue.UnloadRequest, _ *worker.Stream) (*glue.UnloadResponse, error) {
		existed, err := h.Unload(ctx)
		if err != nil {
			return nil, err
		}
		return &glue.UnloadResponse{Existed: existed}, nil
	})
}

// requestFrom checks a GenerateRequest and turns it into a Request.
func requestFrom(req *glue.GenerateRequest) (Request, error) {
	p, err := SamplingFrom(req)
	if err != nil {
		return Request{}, err
	}
	r := Request{Prompt: req.Prompt, Chat: req.Chat, MaxTokens: int(req.MaxTokens), Sampling: p, Stop: req.Stop, IgnoreEOS: req.IgnoreEOS,
		Grammar: req.Grammar, JSONSchema: req.JsonSchema, Tools: []byte(req.Tools), ToolChoice: req.ToolChoice, ToolName: req.ToolName,
		ContextShift: req.ContextShift, NKeep: int(req.NKeep)}
	if req.Chat && req.Messages != "" {
		if r.Messages, err = messagesFromJSON(req.Messages); err != nil {
			return Request{}, err
		}
		if len(r.Messages) == 0 {
			return Request{}, invalid("messages is empty")
		}
	} else if req.Chat {
		if r.Messages, err = messages(req.Roles, req.Contents); err != nil {
			return Request{}, err
		}
		if len(r.Messages) == 0 {
			return Request{}, invalid("messages is empty")
		}
	}
	return r, nil
}

// loadRequest loads the one source a ModelLoadRequest names: the bytes it
// carries, or (browser only, see loadNamed) a cache key, a URL, the URLs
// of a split model's shards or posted Blobs.
func (h *Host) loadRequest(ctx context.Context, req *glue.ModelLoadRequest, o LoadOptions) (*glue.ModelInfo, error) {
	n := 0
	for _, set := range []bool{len(req.Data) > 0, req.Key != "", req.URL != "", len(req.ShardURLs) > 0, req.BlobID != ""} {
		if set {
			n++
		}
	}
	switch {
	case n > 1:
		return nil, invalid("a load names exactly one source: data, key, url, shardURLs or blobID")
	case n == 0 || len(req.Data) > 0:
		// The request's Data aliases its frame, valid until this handler
		// returns; Load reads it only while it runs. (No source at all is
		// an empty file: Load reports it as a bad file.)
		return h.Load(ctx, req.Data, o)
	}
	return h.loadNamed(ctx, req, o)
}
