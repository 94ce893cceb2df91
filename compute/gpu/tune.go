package gpu

import (
	"github.com/webgguf/webgguf/compute"
	"github.com/webgguf/webgguf/gguf"
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
// double-buffered tiles (shaders.MatmulDB) as matmulDB decides,
// and vec4 x reads (shaders.MatmulXVec) on every adapter where K allows.
func (c *compiler) tuned(key shaders.Key, shape shaders.Shape, params func(*compute.Step) shaders.Params) shaders.Key {
	if key.Op == shaders.OpMatmul {
		if !c.b.d.Info().Fallback {
			key = shaders.MatmulTuned(key, shape.M, shape.N, shape.K)
		}
		if c.b.matmulDB(key.Weight, c.b.d.Info().Fallback) {
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
// through shaders.MatmulDB) on or off for every weight format in programs
// compiled afterwards (tuning). By default it is on for the plain formats
// (f32, f16, bf16) on hardware adapters and off otherwise. H200, with the
// vec4 x reads (Key.XVec): for F16 it and the plain-format QKV and SwiGLU
// matmul fusions took Llama-1B pp512 from 14.6-14.8k to 15.2-15.4k tok/s,
// three alternated rounds; for the block formats it stays within noise
// (Q8_0 15.5k against 15.3k and 15.6k, Q4_K_M 14.6k against 14.7k and
// 14.9k; shaders/BENCH.md).
func (b *Backend) SetMatmulDB(on bool) {
	b.mu.Lock()
	b.db = &on
	b.mu.Unlock()
}

// matmulDB reports whether a matmul of weight format w gets double-buffered
// tiles: as SetMatmulDB set, else for plain formats on hardware adapters.
func (b *Backend) matmulDB(w gguf.GGMLType, software bool) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.db != nil {
		return *b.db
	}
	return !software && w.BlockSize() == 1
}
