package engine

import "fmt"

// ContextFullError is returned when tokens would not fit the KV cache;
// nothing is evaluated and the cache is left as it was.
type ContextFullError struct {
	NCtx int // cache capacity in positions
	Pos  int // positions already used
	Need int // positions the call asked for
}

func (e *ContextFullError) Error() string {
	return fmt.Sprintf("engine: context full: %d + %d tokens exceed n_ctx %d", e.Pos, e.Need, e.NCtx)
}

// OptionError reports an unusable option.
type OptionError struct {
	Option string
	Reason string
}

func (e *OptionError) Error() string { return fmt.Sprintf("engine: option %s: %s", e.Option, e.Reason) }
