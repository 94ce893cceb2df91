package engine

import (
	"math"
	"runtime"
	"runtime/debug"

	"github.com/webgguf/webgguf/compute"
)

// hostReserve is kept free of the plan in a bounded address space: the
// runtime's own structures, the garbage a load makes before the collector
// runs, the tokenizer and chat template, and the page's requests all need
// room the static plan does not see.
const hostReserve = 256 << 20

// minShrinkCtx is the smallest context Load shrinks a defaulted NCtx to:
// below it a chat model is of little use, and a plan that fits only there
// is better refused than half-loaded.
const minShrinkCtx = 256

// HostMemoryAvailable is the default Options.HostMemoryLimit: the bytes Go
// memory can still grow by for a plan. On GOARCH=wasm it is the 4 GiB
// address space of wasm32 less what the runtime already holds in use and
// a reserve (after a collection, so that garbage is not counted);
// elsewhere there is no address-space bound and it is only the
// room left under a soft memory limit (GOMEMLIMIT, debug.SetMemoryLimit)
// if one is set, else math.MaxInt64.
func HostMemoryAvailable() int64 {
	if addressSpace > 0 {
		// Garbage counts as in use until collected: without this, the
		// model a reload has just freed would keep its replacement out.
		runtime.GC()
	}
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return hostBudget(addressSpace, debug.SetMemoryLimit(-1), inUse(&ms))
}

// inUse is the Go memory the runtime holds for live data: what it has
// obtained from the system less the idle heap spans it can hand out again
// (wasm linear memory never shrinks, so those spans are the only room that
// is not new growth).
func inUse(ms *runtime.MemStats) int64 { return int64(ms.Sys - ms.HeapIdle) }

// hostBudget is the budget rule: space is the address space's size (0:
// unbounded), soft the runtime's soft memory limit (math.MaxInt64: none),
// used what is already in use. A bounded space keeps hostReserve free; the
// result is never negative.
func hostBudget(space, soft, used int64) int64 {
	b := int64(math.MaxInt64)
	if space > 0 {
		b = space - hostReserve - used
	}
	if soft != math.MaxInt64 {
		b = min(b, soft-used)
	}
	return max(b, 0)
}

// deviceResident reports whether be keeps weights, caches and arenas in
// its own device memory rather than in Go memory. Only the WebGPU backend
// does; an unknown backend is counted as Go memory, which may refuse a
// plan it could hold but never lets one through that it cannot.
func deviceResident(be compute.Backend) bool { return be != nil && be.Name() == "webgpu" }

// Host is the part of the plan held in Go memory on a backend that keeps
// the rest on its device (device true: the host logits buffer only), or
// all of it (device false: the CPU backend).
func (p Plan) Host(device bool) int64 {
	if device {
		return p.LogitsBytes
	}
	return p.Total()
}

// check compares the plan with the limits, the address space's first: it
// returns the *MemoryError a load must fail with, or nil.
func (p Plan) check(device bool, hostLimit, limit int64, maxBuffer, maxCache int64) *MemoryError {
	where := SpaceGoMemory
	if addressSpace > 0 {
		where = SpaceWasmMemory
	}
	if need := p.Host(device); need > hostLimit {
		return &MemoryError{Plan: p, Limit: hostLimit, Need: need, Space: where}
	}
	if maxBuffer > 0 && maxCache > maxBuffer {
		return &MemoryError{Plan: p, Limit: maxBuffer, Need: maxCache, Space: SpaceDeviceBuffer}
	}
	if need := p.Total(); need > limit {
		return &MemoryError{Plan: p, Limit: limit, Need: need, Space: SpacePlan}
	}
	return nil
}
