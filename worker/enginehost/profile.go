package enginehost

import (
	"context"
	"strconv"
)

// stepProfiler is a backend that can time its last step per kernel
// (gpu.Backend): the benchmark pages ask for it to see where a token goes
// in the browser, where no CLI can run `webgguf bench --profile`.
type stepProfiler interface {
	RecordSteps(on bool)
	ProfileReport(ctx context.Context, runs int, title string) (string, error)
}

// depthSetter is a backend whose greedy pipeline depth can be set
// (gpu.Backend).
type depthSetter interface{ SetPipelineDepth(n int) }

// batchSetter is a backend whose greedy readback batch can be set
// (gpu.Backend).
type batchSetter interface{ SetReadbackBatch(n int) }

// applyPageKnobs applies the benchmark page's knobs to a just-loaded
// model's backend (pageknobs_js.go): the pipeline depth and the readback
// batch, if the page set them (the batch applies from the first
// generation, its first step starting a new sequence), and step
// recording when the page asked for profiles and the backend can
// profile; it returns the profiler, or nil.
func applyPageKnobs(be any) stepProfiler {
	if ds, ok := be.(depthSetter); ok {
		if d := pipelineDepth(); d > 0 {
			ds.SetPipelineDepth(d)
		}
	}
	if bs, ok := be.(batchSetter); ok {
		if n := readbackBatch(); n > 0 {
			bs.SetReadbackBatch(n)
		}
	}
	sp, ok := be.(stepProfiler)
	if !ok || !profileRequested() {
		return nil
	}
	sp.RecordSteps(true)
	return sp
}

// profileLast renders the profile of m's last step (its last decoded
// token, after a generation), or "" when m is not being profiled. It
// re-runs that step (5 untimed runs for the host phases, 1 timed). A
// pipelined greedy step's re-run rewrites its KV row from a placeholder
// token (gpu.Backend.ProfileLast), so the prefix cache is dropped: the
// next request prefills its whole prompt again.
func (m *loaded) profileLast(ctx context.Context) string {
	if m.prof == nil {
		return ""
	}
	m.sess.Forget()
	s, err := m.prof.ProfileReport(ctx, 5, "profile of the last decode step at position "+strconv.Itoa(m.eng.Pos()))
	if err != nil {
		s += "profile: " + err.Error()
	}
	return s
}

// profileLast is loaded.profileLast for the loaded model, under the host's
// lock (the profile runs steps on the model's backend).
func (h *Host) profileLast(ctx context.Context) string {
	release, err := h.acquire(ctx)
	if err != nil {
		return ""
	}
	defer release()
	m, err := h.model()
	if err != nil {
		return ""
	}
	return m.profileLast(ctx)
}
