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

// MemoryError is returned by Load when the static memory plan does not
// fit where it must live; nothing has been allocated. Need and Limit are
// the bytes of the plan that must fit in Space and the bytes available
// there.
type MemoryError struct {
	Plan  Plan
	Limit int64  // bytes available in Space
	Need  int64  // bytes of the plan that Space must hold
	Space string // SpaceWasmMemory, SpaceGoMemory, SpaceDeviceBuffer or SpacePlan
}

// The spaces a MemoryError names.
const (
	// SpaceWasmMemory is the wasm32 linear memory left to Go (4 GiB less
	// what is in use; HostMemoryAvailable): everything on the CPU
	// backend, the logits buffer on the WebGPU backend.
	SpaceWasmMemory = "wasm memory"
	// SpaceGoMemory is Options.HostMemoryLimit natively.
	SpaceGoMemory = "Go memory"
	// SpaceDeviceBuffer is one device buffer (Options.MaxBufferBytes, the
	// adapter's maxBufferSize): Need is the largest KV cache tensor.
	SpaceDeviceBuffer = "one device buffer"
	// SpacePlan is the whole plan against Options.MemoryLimit.
	SpacePlan = "the memory limit"
)

// Error formats the MemoryError.
func (e *MemoryError) Error() string {
	return fmt.Sprintf("engine: memory plan needs %d bytes of %s, %d available (plan %d bytes: weights %d, KV %d, arenas %d, logits %d)",
		e.Need, e.Space, e.Limit, e.Plan.Total(), e.Plan.WeightBytes, e.Plan.KVBytes, e.Plan.ArenaBytes, e.Plan.LogitsBytes)
}

// ModeError reports a call the loaded model cannot serve: logits or
// generation from an embedding model (Want "logits"), or embeddings from
// a generative one (Want "embeddings").
type ModeError struct {
	Arch string // general.architecture
	Want string // "logits", "embeddings" or "rank"
}

// Error formats the ModeError.
func (e *ModeError) Error() string {
	switch e.Want {
	case "logits":
		return fmt.Sprintf("engine: %s is an embedding model: it has no logits to evaluate or generate from (use Embed)", e.Arch)
	case "rank":
		return fmt.Sprintf("engine: %s has no rank pooling (a reranker's classifier head): it cannot rerank", e.Arch)
	}
	return fmt.Sprintf("engine: %s is a generative model without a pooling type: it gives no embeddings", e.Arch)
}

// ShiftError is returned by Shift (and a Session with ContextShift) on an
// engine whose cache cannot be shifted; the cache is left as it was.
type ShiftError struct {
	Reason string
}

// Error formats the ShiftError.
func (e *ShiftError) Error() string { return "engine: context shift not supported: " + e.Reason }
