package sample

import "fmt"

// LogitError reports a logit that is NaN or infinite: the model's output is
// broken and no distribution can be formed from it.
type LogitError struct {
	Index int     // token id of the bad logit
	Value float32 // NaN, +Inf or -Inf
}

// Error implements error.
func (e *LogitError) Error() string {
	return fmt.Sprintf("sample: logit of token %d is %v", e.Index, e.Value)
}

// ParamError reports an unusable sampling parameter.
type ParamError struct {
	Field string
	Value any
	Why   string
}

// Error implements error.
func (e *ParamError) Error() string {
	return fmt.Sprintf("sample: %s = %v: %s", e.Field, e.Value, e.Why)
}

// TokenError reports a token id outside the vocabulary.
type TokenError struct {
	Token     int32
	VocabSize int
}

// Error implements error.
func (e *TokenError) Error() string {
	return fmt.Sprintf("sample: token %d outside the vocabulary of %d", e.Token, e.VocabSize)
}

// ErrNoCandidate is returned when every token was excluded (for instance
// all logit biases are -Inf): nothing can be drawn.
var ErrNoCandidate = fmt.Errorf("sample: every token is excluded (all logits -Inf after bias)")
