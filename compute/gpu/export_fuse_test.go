package gpu

import (
	"github.com/webgguf/webgguf/compute"
	"github.com/webgguf/webgguf/gguf"
)

// FusionCounts plans g's fusions as on a hardware adapter (norms fused into
// plain-format matvecs too) with an f16 KV cache, and counts the groups of
// each kind.
func FusionCounts(g *compute.Graph) map[string]int {
	f := planFusions(g, true, gguf.TypeF16, true)
	return map[string]int{"qkv": len(f.qkv), "rope_kv": len(f.ropeKV), "qkv_rope": len(f.qkvRope),
		"residual": len(f.residual), "glu": len(f.swiglu), "norm": len(f.norm),
		"post_norm": len(f.postNorm), "rope_norm": len(f.ropeNorm), "post_in": len(f.postIn)}
}
