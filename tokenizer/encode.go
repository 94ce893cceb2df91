package tokenizer

import "strings"

// Encode tokenizes text like llama_tokenize(text, addSpecial, parseSpecial):
// addSpecial adds BOS/EOS as the vocabulary asks; parseSpecial lets control
// tokens written in the text (e.g. "<|im_start|>") become those tokens.
// The only errors are a SentencePiece vocabulary without a needed byte
// token and a WordPiece one without the CLS/SEP ids addSpecial needs.
func (t *Tokenizer) Encode(text string, addSpecial, parseSpecial bool) ([]int32, error) {
	frags := t.partition(text, parseSpecial, nil)
	out := make([]int32, 0, len(text)/3+2)
	switch t.kind {
	case kindSPM:
		isPrevSpecial := true // the first fragment gets the space prefix
		if addSpecial && t.addBOS {
			out = append(out, t.bos)
		}
		s := spmSession{t: t}
		for _, f := range frags {
			if f.token != NoToken {
				out = append(out, f.token)
				isPrevSpecial = true
				continue
			}
			raw := text[f.off : f.off+f.n]
			var b strings.Builder
			b.Grow(len(raw) + 4)
			if t.addSpacePrefix && isPrevSpecial {
				b.WriteString("▁")
			}
			b.WriteString(strings.ReplaceAll(raw, " ", "▁"))
			var err error
			if out, err = s.tokenize(b.String(), out); err != nil {
				return nil, err
			}
			isPrevSpecial = false
		}
		if addSpecial && t.addEOS {
			out = append(out, t.eos)
		}
	case kindBPE:
		if addSpecial && t.addBOS {
			out = append(out, t.bos)
		}
		s := newBPESession(t)
		for _, f := range frags {
			if f.token != NoToken {
				out = append(out, f.token)
				continue
			}
			out = s.tokenize(text[f.off:f.off+f.n], out)
		}
		if addSpecial && t.addEOS {
			out = append(out, t.eos)
		}
	case kindWPM:
		// llama.cpp adds [CLS] and [SEP] whatever add_bos/add_sep say.
		if addSpecial {
			if t.bos == NoToken || t.sep == NoToken {
				return nil, metaErr("tokenizer.ggml.bos_token_id", -1, "WordPiece needs a CLS (bos) and a SEP token to add special tokens")
			}
			out = append(out, t.bos)
		}
		s := wpmSession{t: t}
		for _, f := range frags {
			if f.token != NoToken {
				out = append(out, f.token)
				continue
			}
			out = s.tokenize(text[f.off:f.off+f.n], out)
		}
		if addSpecial {
			out = append(out, t.sep)
		}
	}
	return out, nil
}
