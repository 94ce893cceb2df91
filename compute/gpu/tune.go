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
// (M: the largest micro-batch), on every adapter but software ones.
func (c *compiler) tuned(key shaders.Key, shape shaders.Shape, params func(*compute.Step) shaders.Params) shaders.Key {
	if key.Op == shaders.OpMatmul {
		if c.b.d.Info().Fallback {
			return key
		}
		return shaders.MatmulTuned(key, shape.M, shape.N, shape.K)
	}
	if key.Op != shaders.OpMatvec && key.Op != shaders.OpMatvecQKV {
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
