package tokenizer

// The GPT-4o (o200k) and Tekken pre-tokenizers split words at case changes.
// llama.cpp runs their regexes through std::regex on "collapsed" text where
// every non-ASCII letter is one byte that is neither a-z nor A-Z, so:
//
//	upperish = a letter that is not a-z   ((?=[\p{L}])([^a-z]))
//	lowerish = a letter that is not A-Z   ((?=[\p{L}])([^A-Z]))
//
// and non-ASCII letters are both. The matchers below reproduce ECMAScript
// backtracking for
//
//	P?upperish*lowerish+C? | P?upperish+lowerish*C? | \p{N}{1,digits} |
//	 ?[^\s\p{L}\p{N}]+[\r\n/]* | \s*[\r\n]+ | \s+(?!\S) | \s+
//
// with P = [^\r\n\p{L}\p{N}] and C the optional contraction (GPT-4o only).

func isLetter(r rune) bool { return cptFlags(r)&flLetter != 0 }
func isNumber(r rune) bool { return cptFlags(r)&flNumber != 0 }
func isSpace(r rune) bool  { return cptFlags(r)&flSpace != 0 }
func upperish(r rune) bool { return isLetter(r) && !(r >= 'a' && r <= 'z') }
func lowerish(r rune) bool { return isLetter(r) && !(r >= 'A' && r <= 'Z') }

// contractionLen matches (?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD]) at pos.
func contractionLen(cpts []rune, pos, end int) int {
	if pos+1 >= end || cpts[pos] != '\'' {
		return 0
	}
	switch lowerASCII(cpts[pos+1]) {
	case 's', 't', 'm', 'd':
		return 2
	}
	if pos+2 < end {
		a, b := lowerASCII(cpts[pos+1]), lowerASCII(cpts[pos+2])
		if (a == 'r' && b == 'e') || (a == 'v' && b == 'e') || (a == 'l' && b == 'l') {
			return 3
		}
	}
	return 0
}

func runOf(cpts []rune, pos, end int, in func(rune) bool) int {
	n := 0
	for pos+n < end && in(cpts[pos+n]) {
		n++
	}
	return n
}

// matchCaseSplit returns the regex_iterator matcher for the GPT-4o
// (contractions, \p{N}{1,3}) or Tekken (no contractions, \p{N}) regex.
func matchCaseSplit(contractions bool, digits int) func([]rune, int, int) int {
	return func(cpts []rune, pos, end int) int {
		c := cpts[pos]
		prefixOK := c != '\r' && c != '\n' && !isLetter(c) && !isNumber(c)
		starts := []int{pos}
		if prefixOK {
			starts = []int{pos + 1, pos} // the greedy ? tries the prefix first
		}
		tail := func(e int) int {
			if contractions {
				e += contractionLen(cpts, e, end)
			}
			return e - pos
		}
		// P? upperish* lowerish+ C?
		for _, q := range starts {
			if q > end {
				continue
			}
			for k := runOf(cpts, q, end, upperish); k >= 0; k-- {
				if m := runOf(cpts, q+k, end, lowerish); m > 0 {
					return tail(q + k + m)
				}
			}
		}
		// P? upperish+ lowerish* C?
		for _, q := range starts {
			if q > end {
				continue
			}
			if k := runOf(cpts, q, end, upperish); k > 0 {
				return tail(q + k + runOf(cpts, q+k, end, lowerish))
			}
		}
		// \p{N}{1,digits}
		if isNumber(c) {
			return min(runOf(cpts, pos, end, isNumber), digits)
		}
		//  ?[^\s\p{L}\p{N}]+[\r\n/]*
		other := func(r rune) bool { return !isSpace(r) && !isLetter(r) && !isNumber(r) }
		q := pos
		if c == ' ' && pos+1 < end && other(cpts[pos+1]) {
			q++
		}
		if n := runOf(cpts, q, end, other); n > 0 {
			e := q + n
			e += runOf(cpts, e, end, func(r rune) bool { return r == '\r' || r == '\n' || r == '/' })
			return e - pos
		}
		return matchSpaces(cpts, pos, end)
	}
}

// matchSpaces matches \s*[\r\n]+ | \s+(?!\S) | \s+ at pos.
func matchSpaces(cpts []rune, pos, end int) int {
	nws, lastRN := 0, 0
	for pos+nws < end && isSpace(cpts[pos+nws]) {
		if r := cpts[pos+nws]; r == '\r' || r == '\n' {
			lastRN = nws + 1
		}
		nws++
	}
	if lastRN > 0 {
		return lastRN
	}
	if nws > 1 && pos+nws < end {
		return nws - 1
	}
	return nws
}

// DeepSeek-Coder's regexes, applied in turn: [\r\n], \s?\p{L}+, \s?\p{P}+,
// [一-龥ࠀ-一가-퟿]+, \p{N}.
func matchCRLF(cpts []rune, pos, _ int) int {
	if cpts[pos] == '\r' || cpts[pos] == '\n' {
		return 1
	}
	return 0
}

func matchSpaceThen(in func(rune) bool) func([]rune, int, int) int {
	return func(cpts []rune, pos, end int) int {
		if isSpace(cpts[pos]) && pos+1 < end && in(cpts[pos+1]) {
			return 1 + runOf(cpts, pos+1, end, in)
		}
		return runOf(cpts, pos, end, in)
	}
}

func isPunct(r rune) bool { return cptFlags(r)&flPunct != 0 }

// isDeepseekCJK is the class [一-龥ࠀ-一가-퟿]. llama.cpp matches it with
// std::wregex on text where non-ASCII whitespace was replaced by \v, so
// such whitespace (U+2003, U+3000, ...) never matches despite the range.
func isDeepseekCJK(r rune) bool {
	if isSpace(r) {
		return false
	}
	return (r >= 0x4E00 && r <= 0x9FA5) || (r >= 0x0800 && r <= 0x4E00) || (r >= 0xAC00 && r <= 0xD7FF)
}

// matchPoro is " ?[^(\s|.,!?…。，、।۔،)]+" (Poro, BLOOM, GPT3-Finnish, Viking).
func matchPoro(cpts []rune, pos, end int) int {
	word := func(r rune) bool {
		if isSpace(r) {
			return false
		}
		switch r {
		case '(', '|', ')', '.', ',', '!', '?', '…', '。', '，', '、', '।', '۔', '،':
			return false
		}
		return true
	}
	if cpts[pos] == ' ' && pos+1 < end && word(cpts[pos+1]) {
		return 1 + runOf(cpts, pos+1, end, word)
	}
	return runOf(cpts, pos, end, word)
}
