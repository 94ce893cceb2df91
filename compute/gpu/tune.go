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
// double-buffered tiles (shaders.MatmulDB) as matmulDB decides,
// and vec4 x reads (shaders.MatmulXVec) on every adapter where K allows.
func (c *compiler) tuned(key shaders.Key, shape shaders.Shape, params func(*compute.Step) shaders.Params) shaders.Key {
	if key.Op == shaders.OpMatmul {
		if !c.b.d.Info().Fallback {
			key = shaders.MatmulTuned(key, shape.M, shape.N, shape.K)
		}
		if c.b.matmulDB(key, c.b.d.Info().Fallback) {
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
// through shaders.MatmulDB) on or off for every weight format and matmul
// in programs compiled afterwards (tuning). By default it is on for the
// QKV matmul of a plain format (f32, f16, bf16) on hardware adapters and
// off otherwise: on the H200 DB speeds up only the plain QKV matmul (Llama-1B
// F16 pp512 17524-17696 tok/s with none, 17714-17742 with the QKV matmul
// alone) and slows the others; for block formats it is within noise.
func (b *Backend) SetMatmulDB(on bool) {
	b.mu.Lock()
	b.db = &on
	b.mu.Unlock()
}

// matmulDB reports whether matmul key k gets double-buffered tiles: as
// SetMatmulDB set, else for a plain format's QKV matmul on hardware
// adapters.
func (b *Backend) matmulDB(k shaders.Key, software bool) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.db != nil {
		return *b.db
	}
	return !software && k.Weight.BlockSize() == 1 && k.QKV
}
