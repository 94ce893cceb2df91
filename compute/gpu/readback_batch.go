package gpu

import "runtime"

// Batched readback of greedy tokens. Every pipelined greedy step copies
// its token into the argmax readback ring (pipeline.go); with a batch of B
// the tokens of B consecutive steps go into one map-read buffer, whose map
// starts at the submit of the B-th (or when the host needs a token of a
// batch not full yet: the end of generation, a stop, a cancel, a new
// sequence; webgpu.Readback). In the browser each map is a round trip
// through Chromium's GPU process, 2-3 ms on the lent H100 against ~1 ms
// of GPU work for a Llama-1B step, so one map per step caps decode at
// 357-554 tok/s where the same GPU decodes 1052 natively
// (scripts/bench/RESULTS.md); one map per B steps pays that round trip 1/B as
// often. Natively a map costs tens of µs and batching would only delay
// tokens.

// maxReadbackBatch is the largest batch (SetReadbackBatch), the argmax
// ring's results per slot.
const maxReadbackBatch = 8

// browserReadbackBatch is the batch in the browser on a hardware adapter.
// 4 (with ArgmaxDepth's default of 6 in flight) is a first guess, not a
// measurement: the device bench (scripts/bench/device-browser.sh with
// BENCH_BATCH=1, 2, 4, 8) decides it.
const browserReadbackBatch = 4

// readbackBatch is the batch the program's next sequence uses: the one
// SetReadbackBatch set, else browserReadbackBatch in the browser on a
// hardware adapter, else 1 (natively, and on software adapters, where a
// step takes up to 0.5 s and the tokens would arrive in bursts, each
// delayed by up to B-1 steps).
func (p *program) readbackBatch() int {
	p.b.mu.Lock()
	n := p.b.rbBatch
	p.b.mu.Unlock()
	switch {
	case n > 0:
		return min(n, maxReadbackBatch)
	case runtime.GOOS == "js" && !p.b.d.Info().Fallback:
		return browserReadbackBatch
	}
	return 1
}

// SetReadbackBatch sets how many greedy steps' tokens share one readback
// map (0 restores the default: 1 natively, browserReadbackBatch in the
// browser on a hardware adapter; at most maxReadbackBatch = 8). It
// applies from a program's next sequence (its next SubmitArgmax without
// feed) and raises ArgmaxDepth to at least n+1. For benchmarks (in the
// browser, the bench page's batch parameter) and tests.
func (b *Backend) SetReadbackBatch(n int) {
	b.mu.Lock()
	b.rbBatch = n
	b.mu.Unlock()
}
