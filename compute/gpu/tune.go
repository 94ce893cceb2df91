package gpu

import (
	"github.com/webgguf/webgguf/compute"
	"github.com/webgguf/webgguf/shaders"
)

// tuned gives a matvec or matvec_qkv key its per-shape workgroup shape
// (shaders.MatvecTuned). The reduction length K comes from the dispatch's
// parameters, which for these ops do not depend on the step. CPU adapters
// (lavapipe, which crashed on 256-thread matvecs in the parallel test
// suite) and SwiftShader keep the default shape.
//
// A matmul gets its tile from shaders.MatmulTuned for the compiled shape
// (M: the largest micro-batch), on every adapter but software ones, and
// double-buffered tiles (shaders.MatmulDB) when SetMatmulDB turned them on,
// and vec4 x reads (shaders.MatmulXVec) on every adapter where K allows.
func (c *compiler) tuned(key shaders.Key, shape shaders.Shape, params func(*compute.Step) shaders.Params) shaders.Key {
	if key.Op == shaders.OpMatmul {
		if !c.b.d.Info().Fallback {
			key = shaders.MatmulTuned(key, shape.M, shape.N, shape.K)
		}
		if c.b.matmulDB() {
			key = shaders.MatmulDB(key)
		}
		if p, ok := params(&compute.Step{}).(shaders.MatmulParams); ok {
			key = shaders.MatmulXVec(key, int(p.K))
		}
		return key
	}
	if key.Op != shaders.OpMatvec && key.Op != shaders.OpMatvecQKV {
		return key
	}
	n := 0
	switch p := params(&compute.Step{}).(type) {
	case shaders.MatvecParams:
		n = int(p.N)
	case shaders.MatvecQKVParams:
		n = int(p.Nq + p.Nk + p.Nv)
	}
	if c.b.matvecShape(&key, n) { // SetMatvecShape: on every adapter
		return key
	}
	// Software adapters keep the untuned default shape: on SwiftShader the
	// tuned 128-thread shapes made tiny-llama's browser generation ~3x
	// slower (barriers are costly there), and lavapipe crashed on 256.
	if c.b.d.Info().Fallback {
		return key
	}
	maxWG := 256 // WebGPU's default maxComputeInvocationsPerWorkgroup
	switch p := params(&compute.Step{}).(type) {
	case shaders.MatvecParams:
		return shaders.MatvecTuned(key, int(p.N), int(p.K), maxWG)
	case shaders.MatvecQKVParams:
		return shaders.MatvecTuned(key, int(p.Nq+p.Nk+p.Nv), int(p.K), maxWG)
	}
	return key
}

// SetMatmulDB turns the double-buffered prefill matmul (shaders Key.DB,
// through shaders.MatmulDB) on or off for programs compiled afterwards
// (tuning). Off by default: on the H200 it moved pp512 by -1.0% (Q4_K_M),
// +1.1% (Q8_0) and 0 (Q4_0), three alternated rounds each, all within the
// runs' spread (shaders/BENCH.md).
func (b *Backend) SetMatmulDB(on bool) {
	b.mu.Lock()
	b.db = &on
	b.mu.Unlock()
}

func (b *Backend) matmulDB() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.db != nil && *b.db
}
