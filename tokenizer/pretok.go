package tokenizer

// splitFunc refines a pre-tokenization: given the code points and the
// lengths (in code points) of the current pieces, it appends the lengths of
// the finer pieces to out. Like llama.cpp's unicode_regex_split, each regex
// of a pre-tokenizer runs on the pieces the previous one produced, and the
// text between matches becomes pieces too.
type splitFunc func(cpts []rune, in, out []int) []int

// initPre picks the pre-tokenizer regexes llama.cpp uses for tokenizer.ggml.pre.
func (t *Tokenizer) initPre(pre string) error {
	switch pre {
	case "", "default":
		t.split = []splitFunc{splitMatches(matchPunctRun(false)), splitGPT2, splitMatches(matchNumber(0)), splitMatches(matchDigits3)}
	case "llama3", "llama-v3", "llama-bpe", "falcon3", "falcon-h1", "pixtral", "midm-2.0", "lfm2", "jina-v5-nano":
		t.split = []splitFunc{splitLlama3(3)}
		t.ignoreMerges = true
		t.addBOS = true
	case "dbrx", "smaug-bpe", "chatglm-bpe", "glm4":
		t.split = []splitFunc{splitLlama3(3)}
		if pre == "chatglm-bpe" || pre == "glm4" {
			t.bos = NoToken
		}
	case "qwen2", "deepseek-r1-qwen", "kormo", "f2llmv2", "stablelm2", "hunyuan", "megrez", "solar-open":
		// Not one of llama.cpp's hand-written regexes: it runs through
		// std::regex on "collapsed" text, which behaves like the llama3
		// splitter with \p{N} instead of \p{N}{1,3}.
		t.split = []splitFunc{splitLlama3(1)}
		switch pre {
		case "qwen2", "deepseek-r1-qwen", "kormo", "f2llmv2", "hunyuan", "solar-open":
			t.cleanSpaces = false
		}
	case "gpt-2", "phi-2", "jina-es", "jina-de", "gigachat", "jina-v2-es", "jina-v2-de", "a.x-4.0", "mellum", "modern-bert",
		"mpt", "olmo", "jais", "exaone4", "jina-v1-en", "jina-v2-code", "roberta-bpe":
		t.split = []splitFunc{splitGPT2}
		switch pre {
		case "jina-v1-en", "jina-v2-code", "roberta-bpe":
			t.addSEP = true // llama.cpp: a rerank pair gets SEP between query and document
		}
	case "trillion", "granite-docling":
		t.split = []splitFunc{splitGPT2}
		t.cleanSpaces = false
	case "starcoder", "refact", "command-r", "smollm", "codeshell", "exaone", "minerva-7b", "mellum2":
		t.split = []splitFunc{splitMatches(matchNumber(1)), splitGPT2}
		if pre == "command-r" || pre == "smollm" {
			t.cleanSpaces = false
		}
	case "gpt-4o", "llama4", "kanana2", "talkie", "minimax-m2":
		t.split = []splitFunc{splitMatches(matchCaseSplit(true, 3))}
		t.cleanSpaces = false
	case "tekken":
		t.split = []splitFunc{splitMatches(matchCaseSplit(false, 1))}
		t.cleanSpaces = false
		t.ignoreMerges = true
		t.addBOS = true
	case "deepseek-coder":
		t.split = []splitFunc{splitMatches(matchCRLF), splitMatches(matchSpaceThen(isLetter)), splitMatches(matchSpaceThen(isPunct)),
			splitMatches(func(c []rune, p, e int) int { return runOf(c, p, e, isDeepseekCJK) }), splitMatches(matchNumber(1))}
		t.cleanSpaces = false
	case "deepseek-llm":
		t.split = []splitFunc{splitMatches(matchCRLF), splitMatches(matchSpaceThen(isDeepseekLetter)),
			splitMatches(matchSpaceThen(isDeepseekPunct)), splitTrailingSpaces,
			splitMatches(func(c []rune, p, e int) int { return runOf(c, p, e, isDeepseekCJK) }), splitMatches(matchNumber(0))}
		t.cleanSpaces = false
	case "poro-chat", "bloom", "gpt3-finnish":
		t.split = []splitFunc{splitMatches(matchPoro)}
		t.cleanSpaces = pre != "poro-chat"
	case "viking":
		t.split = []splitFunc{splitMatches(matchPoro), splitMatches(matchNumber(1))}
		t.cleanSpaces = false
	case "falcon":
		t.split = []splitFunc{splitMatches(matchPunctRun(true)), splitGPT2, splitMatches(matchDigits3)}
	default:
		return &UnsupportedError{Key: "tokenizer.ggml.pre", Value: pre}
	}
	return nil
}

// splitMatches turns a matcher (the length of the match at pos, 0 if none)
// into a splitter with std::regex_iterator semantics: leftmost matches,
// scanning on after each; unmatched runs stay pieces of their own.
func splitMatches(match func(cpts []rune, pos, end int) int) splitFunc {
	return func(cpts []rune, in, out []int) []int {
		start := 0
		for _, n := range in {
			end := start + n
			prev := start
			for pos := start; pos < end; {
				m := match(cpts, pos, end)
				if m == 0 {
					pos++
					continue
				}
				if pos > prev {
					out = append(out, pos-prev)
				}
				out = append(out, m)
				pos += m
				prev = pos
			}
			if end > prev {
				out = append(out, end-prev)
			}
			start = end
		}
		return out
	}
}

// matchNumber matches \p{N} once (max 1) or \p{N}+ (max 0).
func matchNumber(max int) func([]rune, int, int) int {
	return func(cpts []rune, pos, end int) int {
		n := 0
		for pos+n < end && cptFlags(cpts[pos+n])&flNumber != 0 && (max == 0 || n < max) {
			n++
		}
		return n
	}
}

// matchDigits3 matches [0-9][0-9][0-9].
func matchDigits3(cpts []rune, pos, end int) int {
	if pos+3 > end {
		return 0
	}
	for i := pos; i < pos+3; i++ {
		if cpts[i] < '0' || cpts[i] > '9' {
			return 0
		}
	}
	return 3
}

// matchPunctRun matches [\p{P}\$\+<=>\^~\|]+ (with the backtick for falcon).
func matchPunctRun(backtick bool) func([]rune, int, int) int {
	return func(cpts []rune, pos, end int) int {
		n := 0
		for pos+n < end {
			r := cpts[pos+n]
			ok := cptFlags(r)&flPunct != 0
			switch r {
			case '$', '+', '<', '=', '>', '^', '~', '|':
				ok = true
			case '`':
				ok = ok || backtick
			}
			if !ok {
				break
			}
			n++
		}
		return n
	}
}
