package tokenizer

// TokenType is the per-token type stored in tokenizer.ggml.token_type
// (llama.cpp's llama_token_type).
type TokenType int32

// Token types as written by llama.cpp's converters.
const (
	TypeUndefined   TokenType = 0
	TypeNormal      TokenType = 1
	TypeUnknown     TokenType = 2
	TypeControl     TokenType = 3
	TypeUserDefined TokenType = 4
	TypeUnused      TokenType = 5
	TypeByte        TokenType = 6
)

// Attr is llama.cpp's llama_token_attr bit set, derived from the token type
// and adjusted by the same heuristics llama.cpp applies at load time.
type Attr uint32

// Token attributes (bit values as in llama.h).
const (
	AttrUndefined   Attr = 0
	AttrUnknown     Attr = 1 << 0
	AttrUnused      Attr = 1 << 1
	AttrNormal      Attr = 1 << 2
	AttrControl     Attr = 1 << 3
	AttrUserDefined Attr = 1 << 4
	AttrByte        Attr = 1 << 5
	AttrNormalized  Attr = 1 << 6
	AttrLStrip      Attr = 1 << 7
	AttrRStrip      Attr = 1 << 8
	AttrSingleWord  Attr = 1 << 9
)

// attrFromType maps a token type to its attribute like llama_vocab::load.
func attrFromType(t TokenType) Attr {
	switch t {
	case TypeUnknown:
		return AttrUnknown
	case TypeUnused:
		return AttrUnused
	case TypeNormal:
		return AttrNormal
	case TypeControl:
		return AttrControl
	case TypeUserDefined:
		return AttrUserDefined
	case TypeByte:
		return AttrByte
	}
	return AttrUndefined
}

// NoToken marks an absent special token id (LLAMA_TOKEN_NULL).
const NoToken int32 = -1

// Vocab is the tokenizer metadata of a GGUF file as plain data. FromGGUF
// fills it from tokenizer.ggml.*; New validates it and builds a Tokenizer.
type Vocab struct {
	Model  string   // tokenizer.ggml.model: "llama" (SentencePiece), "gpt2" (byte-level BPE) or "bert" (WordPiece)
	Pre    string   // tokenizer.ggml.pre: the BPE pre-tokenizer name ("" = llama.cpp's default)
	Tokens []string // tokenizer.ggml.tokens, indexed by id
	Scores []float32
	// Types holds tokenizer.ggml.token_type; nil means every token is normal.
	Types []TokenType
	// Merges holds tokenizer.ggml.merges ("left right"), rank = index.
	Merges []string

	// Special token ids; NoToken when absent. New fills llama.cpp's
	// per-model defaults for ids the file does not set (see Defaults).
	BOS, EOS, EOT, EOM, UNK, SEP, PAD int32

	// Flags; nil means "not in the file", and the model's default applies.
	AddBOS, AddEOS, AddSpacePrefix *bool
	// AddSEP is tokenizer.ggml.add_sep_token (default true for WordPiece).
	AddSEP *bool

	// WordPiece normalizer flags (tokenizer.ggml.normalizer.lowercase and
	// .strip_accents); nil means llama.cpp's default (true; strip_accents
	// follows lowercase).
	Lowercase, StripAccents *bool

	// Name is general.name; llama.cpp keys a few per-model attribute
	// tweaks on it (Phi-3 rstrip).
	Name string
}
