package engine

import (
	"math"
	"testing"
)

// TestHostBudgetRule pins the budget rule: a bounded address space (wasm32)
// keeps hostReserve and what is in use out of the budget, a soft memory
// limit caps it too, and an unbounded one with no soft limit is no bound.
func TestHostBudgetRule(t *testing.T) {
	const gib = 1 << 30
	for _, c := range []struct {
		name              string
		space, soft, used int64
		want              int64
	}{
		{"native, no soft limit", 0, math.MaxInt64, 3 * gib, math.MaxInt64},
		{"native, soft limit", 0, 8 * gib, 3 * gib, 5 * gib},
		{"native, soft limit already passed", 0, 2 * gib, 3 * gib, 0},
		{"wasm32, empty", 4 * gib, math.MaxInt64, 0, 4*gib - hostReserve},
		{"wasm32, 1 GiB in use", 4 * gib, math.MaxInt64, gib, 3*gib - hostReserve},
		{"wasm32, soft limit below the space", 4 * gib, 2 * gib, gib, gib},
		{"wasm32, full", 4 * gib, math.MaxInt64, 4 * gib, 0},
	} {
		if got := hostBudget(c.space, c.soft, c.used); got != c.want {
			t.Errorf("%s: hostBudget(%d, %d, %d) = %d, want %d", c.name, c.space, c.soft, c.used, got, c.want)
		}
	}
}

// TestPlanCheckNamesTheSpace checks which space a plan is refused for: Go
// memory holds all of a CPU plan but only the logits of a device one; a
// cache tensor must fit one device buffer; the whole plan the limit.
func TestPlanCheckNamesTheSpace(t *testing.T) {
	p := Plan{WeightBytes: 1000, KVBytes: 400, ArenaBytes: 100, LogitsBytes: 10}
	for _, c := range []struct {
		name                       string
		device                     bool
		host, limit, maxBuf, maxKV int64
		space                      string
		need, avail                int64
	}{
		{"cpu fits", false, 1510, 1510, 0, 100, "", 0, 0},
		{"cpu over host", false, 1509, 1 << 40, 0, 100, hostSpace(), 1510, 1509},
		{"gpu host holds logits only", true, 10, 1 << 40, 0, 100, "", 0, 0},
		{"gpu logits over host", true, 9, 1 << 40, 0, 100, hostSpace(), 10, 9},
		{"gpu cache over a buffer", true, 1 << 40, 1 << 40, 99, 100, SpaceDeviceBuffer, 100, 99},
		{"gpu over the limit", true, 1 << 40, 1509, 0, 100, SpacePlan, 1510, 1509},
	} {
		me := p.check(c.device, c.host, c.limit, c.maxBuf, c.maxKV)
		if c.space == "" {
			if me != nil {
				t.Errorf("%s: %v", c.name, me)
			}
			continue
		}
		if me == nil || me.Space != c.space || me.Need != c.need || me.Limit != c.avail {
			t.Errorf("%s: got %+v, want %s need %d of %d", c.name, me, c.space, c.need, c.avail)
		}
	}
}

func hostSpace() string {
	if addressSpace > 0 {
		return SpaceWasmMemory
	}
	return SpaceGoMemory
}

// sink keeps the allocation in TestFreedMemoryIsAvailableAgain alive until
// it is dropped.
var sink []byte

// TestFreedMemoryIsAvailableAgain: memory a previous model held and freed
// counts as available, as a reload needs (wasm32 only: natively there is
// no bound to measure; run with GOOS=js GOARCH=wasm and go_js_wasm_exec).
func TestFreedMemoryIsAvailableAgain(t *testing.T) {
	if addressSpace == 0 {
		t.Skip("no address-space bound on this GOARCH")
	}
	before := HostMemoryAvailable()
	sink = make([]byte, 512<<20)
	for i := range sink {
		sink[i] = 1 // touched: really held
	}
	if held := HostMemoryAvailable(); held > before-500<<20 {
		t.Errorf("available %d while 512 MiB is held, %d before", held, before)
	}
	sink = nil
	if after := HostMemoryAvailable(); after < before-16<<20 {
		t.Errorf("available %d after freeing 512 MiB, %d before", after, before)
	}
}
