package gpu

import (
	"github.com/webgguf/webgguf/compute"
	"github.com/webgguf/webgguf/shaders"
)

// tuned gives a matvec or matvec_qkv key its per-shape workgroup shape
// (shaders.MatvecTuned). The reduction length K comes from the dispatch's
// parameters, which for these ops do not depend on the step. CPU adapters
// (lavapipe, which crashed on 256-thread matvecs in the parallel test
// suite) get at most 128 threads per workgroup.
func (c *compiler) tuned(key shaders.Key, params func(*compute.Step) shaders.Params) shaders.Key {
	if key.Op != shaders.OpMatvec && key.Op != shaders.OpMatvecQKV {
		return key
	}
	maxWG := 256 // WebGPU's default maxComputeInvocationsPerWorkgroup
	if c.b.d.Info().Fallback {
		maxWG = 128
	}
	switch p := params(&compute.Step{}).(type) {
	case shaders.MatvecParams:
		return shaders.MatvecTuned(key, int(p.N), int(p.K), maxWG)
	case shaders.MatvecQKVParams:
		return shaders.MatvecTuned(key, int(p.Nq+p.Nk+p.Nv), int(p.K), maxWG)
	}
	return key
}
