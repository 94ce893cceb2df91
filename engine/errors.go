package engine

import "fmt"

// ContextFullError is returned when tokens would not fit the KV cache;
// nothing is evaluated and the cache is left as it was.
type ContextFullError struct {
	NCtx int // cache capacity in positions
	Pos  int // positions already used
	Need int // positions the call asked for
}

// Error formats the ContextFullError.
func (e *ContextFullError) Error() string {
	return fmt.Sprintf("engine: context full: %d + %d tokens exceed n_ctx %d", e.Pos, e.Need, e.NCtx)
}

// OptionError reports an unusable option.
type OptionError struct {
	Option string
	Reason string
}

// Error formats the OptionError.
func (e *OptionError) Error() string { return fmt.Sprintf("engine: option %s: %s", e.Option, e.Reason) }

// MemoryError is returned by Load when the static memory plan exceeds the
// limit; nothing has been allocated.
type MemoryError struct {
	Plan  Plan
	Limit int64
}

// Error formats the MemoryError.
func (e *MemoryError) Error() string {
	return fmt.Sprintf("engine: memory plan %d bytes (weights %d, KV %d, arenas %d, logits %d) exceeds limit %d",
		e.Plan.Total(), e.Plan.WeightBytes, e.Plan.KVBytes, e.Plan.ArenaBytes, e.Plan.LogitsBytes, e.Limit)
}
