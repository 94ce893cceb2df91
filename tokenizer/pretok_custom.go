package tokenizer

// llama.cpp's two hand-written splitters (unicode.cpp), ported line by
// line: they define the GPT-2 and Llama 3 pre-tokenizers, and the Llama 3
// one, with single digits, also matches what std::regex does for Qwen2.

// splitGPT2 is llama.cpp's unicode_regex_split_custom_gpt2 for
// 's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+
func splitGPT2(cpts []rune, in, out []int) []int {
	start := 0
	for _, n := range in {
		ini, end := start, start+n
		start = end
		cpt := func(p int) rune {
			if p >= ini && p < end {
				return cpts[p]
			}
			return -1
		}
		flags := func(p int) uint8 {
			if p >= ini && p < end {
				return cptFlags(cpts[p])
			}
			return 0
		}
		prev := ini
		add := func(e int) int {
			l := e - prev
			if l > 0 {
				out = append(out, l)
			}
			prev = e
			return l
		}
		for pos := ini; pos < end; {
			c := cpts[pos]
			f := flags(pos)
			if c == '\'' && pos+1 < end {
				nx := cpt(pos + 1)
				if nx == 's' || nx == 't' || nx == 'm' || nx == 'd' {
					pos += add(pos + 2)
					continue
				}
				if pos+2 < end {
					nn := cpt(pos + 2)
					if (nx == 'r' && nn == 'e') || (nx == 'v' && nn == 'e') || (nx == 'l' && nn == 'l') {
						pos += add(pos + 3)
						continue
					}
				}
			}
			f2 := f
			if c == ' ' {
				f2 = flags(pos + 1)
			}
			sp := 0
			if c == ' ' {
				sp = 1
			}
			if f2&flLetter != 0 {
				pos += sp
				for f2&flLetter != 0 {
					pos++
					f2 = flags(pos)
				}
				add(pos)
				continue
			}
			if f2&flNumber != 0 {
				pos += sp
				for f2&flNumber != 0 {
					pos++
					f2 = flags(pos)
				}
				add(pos)
				continue
			}
			if f2&(flSpace|flLetter|flNumber) == 0 && f2 != 0 {
				pos += sp
				for f2&(flSpace|flLetter|flNumber) == 0 && f2 != 0 {
					pos++
					f2 = flags(pos)
				}
				add(pos)
				continue
			}
			nws := 0
			for flags(pos+nws)&flSpace != 0 {
				nws++
			}
			if nws > 1 && cpt(pos+nws) != -1 {
				pos += nws - 1
				add(pos)
				continue
			}
			if nws > 0 {
				pos += nws
				add(pos)
				continue
			}
			pos++
			add(pos)
		}
	}
	return out
}

// splitLlama3 is llama.cpp's unicode_regex_split_custom_llama3 for
// (?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,maxDigits}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+
func splitLlama3(maxDigits int) splitFunc {
	return func(cpts []rune, in, out []int) []int {
		start := 0
		for _, n := range in {
			ini, end := start, start+n
			start = end
			cpt := func(p int) rune {
				if p >= ini && p < end {
					return cpts[p]
				}
				return -1
			}
			flags := func(p int) uint8 {
				if p >= ini && p < end {
					return cptFlags(cpts[p])
				}
				return 0
			}
			prev := ini
			add := func(e int) int {
				l := e - prev
				if l > 0 {
					out = append(out, l)
				}
				prev = e
				return l
			}
			for pos := ini; pos < end; {
				c := cpts[pos]
				f := flags(pos)
				if c == '\'' && pos+1 < end {
					nx := lowerASCII(cpt(pos + 1))
					if nx == 's' || nx == 't' || nx == 'm' || nx == 'd' {
						pos += add(pos + 2)
						continue
					}
					if pos+2 < end {
						nn := lowerASCII(cpt(pos + 2))
						if (nx == 'r' && nn == 'e') || (nx == 'v' && nn == 'e') || (nx == 'l' && nn == 'l') {
							pos += add(pos + 3)
							continue
						}
					}
				}
				if !(c == '\r' || c == '\n' || f&flNumber != 0) {
					if f&flLetter != 0 || flags(pos+1)&flLetter != 0 {
						pos++
						for flags(pos)&flLetter != 0 {
							pos++
						}
						add(pos)
						continue
					}
				}
				if f&flNumber != 0 {
					i0 := pos
					for flags(pos)&flNumber != 0 {
						pos++
						if pos-i0 >= maxDigits {
							add(pos)
							i0 = pos
						}
					}
					add(pos)
					continue
				}
				f2 := f
				if c == ' ' {
					f2 = flags(pos + 1)
				}
				if f2&(flSpace|flLetter|flNumber) == 0 && f != 0 {
					if c == ' ' {
						pos++
					}
					for f2&(flSpace|flLetter|flNumber) == 0 && f2 != 0 {
						pos++
						f2 = flags(pos)
					}
					for c2 := cpt(pos); c2 == '\r' || c2 == '\n'; c2 = cpt(pos) {
						pos++
					}
					add(pos)
					continue
				}
				nws, lastRN := 0, 0
				for flags(pos+nws)&flSpace != 0 {
					if c2 := cpt(pos + nws); c2 == '\r' || c2 == '\n' {
						lastRN = pos + nws + 1
					}
					nws++
				}
				if lastRN > 0 {
					pos = lastRN
					add(pos)
					continue
				}
				if nws > 1 && cpt(pos+nws) != -1 {
					pos += nws - 1
					add(pos)
					continue
				}
				if nws > 0 {
					pos += nws
					add(pos)
					continue
				}
				pos++
				add(pos)
			}
		}
		return out
	}
}

// lowerASCII lowercases A-Z; llama.cpp's unicode_tolower only maps other
// letters to letters outside s/t/m/d/r/e/v/l, so ASCII suffices here.
func lowerASCII(r rune) rune {
	if r >= 'A' && r <= 'Z' {
		return r + 32
	}
	return r
}
