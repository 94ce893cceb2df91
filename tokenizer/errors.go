package tokenizer

import "fmt"

// MetadataError reports missing or inconsistent tokenizer metadata. Key is
// the GGUF key (e.g. "tokenizer.ggml.scores"); Index is the array element at
// fault, or -1.
type MetadataError struct {
	Key    string
	Index  int
	Reason string
}

func (e *MetadataError) Error() string {
	if e.Index >= 0 {
		return fmt.Sprintf("tokenizer: %s[%d]: %s", e.Key, e.Index, e.Reason)
	}
	return fmt.Sprintf("tokenizer: %s: %s", e.Key, e.Reason)
}

func metaErr(key string, index int, format string, args ...any) error {
	return &MetadataError{Key: key, Index: index, Reason: fmt.Sprintf(format, args...)}
}

// UnsupportedError reports a tokenizer model or pre-tokenizer this package
// does not implement.
type UnsupportedError struct {
	Key, Value string
}

func (e *UnsupportedError) Error() string {
	return fmt.Sprintf("tokenizer: unsupported %s %q", e.Key, e.Value)
}

// ByteTokenError reports text that SentencePiece byte fallback cannot encode
// because the vocabulary lacks the <0xXX> token (llama.cpp throws here).
type ByteTokenError struct {
	Byte byte
}

func (e *ByteTokenError) Error() string {
	return fmt.Sprintf("tokenizer: vocabulary has no byte token for 0x%02X", e.Byte)
}
