package shaders

import "math"

// Binding is the kind of one @group(0) binding. The values equal
// webgpu.BindingKind's (Uniform, ReadOnlyStorage, Storage), so a caller
// converts with webgpu.BindingKind(b); this package stays free of the GPU
// runtime so it builds and tests its templates anywhere.
type Binding uint8

// Binding kinds, in webgpu.BindingKind order.
const (
	Uniform         Binding = iota // var<uniform>: the op's Params
	ReadOnlyStorage                // var<storage, read>
	Storage                        // var<storage, read_write>
)

// Shape gives the sizes a Dispatch needs. Which fields an op reads is
// documented on the op's Params type; unused fields are ignored.
type Shape struct {
	M       int // tokens / rows of x
	N       int // output rows (matvec, matmul) or element count (element-wise, argmax, top_k)
	K       int // reduction length; rotary dims for RoPE
	Heads   int // query heads
	KVHeads int // key/value heads
	Splits  int // flash-decoding splits of the KV range
}

// Kernel is one compiled specialization: the WGSL source, its entry point,
// the binding layout (Bindings[i] is @binding(i)), a name per binding for
// diagnostics, and the grid it must be launched with. Dispatch is derived
// from the same resolved Key as the WGSL, so host and shader cannot
// disagree about rows per workgroup or tile sizes.
type Kernel struct {
	Key          Key
	WGSL         string
	Entry        string
	Bindings     []Binding
	BindingNames []string
	Dispatch     func(Shape) (x, y, z uint32)
	// WorkgroupBytes is the workgroup memory the kernel declares, to check
	// against the device's maxComputeWorkgroupStorageSize.
	WorkgroupBytes int
}

// maxGrid is WebGPU's default maxComputeWorkgroupsPerDimension.
const maxGrid = 65535

// spread lays n workgroups out as x*y with x <= 65535; kernels fold the pair
// back with wg_linear and drop the surplus of the last row.
func spread(n int) (x, y, z uint32) {
	if n <= 0 {
		return 0, 1, 1
	}
	if n <= maxGrid {
		return uint32(n), 1, 1
	}
	return maxGrid, uint32((n + maxGrid - 1) / maxGrid), 1
}

// ceilDiv rounds a/b up; a negative size (a caller's bug) counts as 0, so a
// grid can never wrap around to billions of workgroups.
func ceilDiv(a, b int) int {
	if a <= 0 {
		return 0
	}
	return (a + b - 1) / b
}

// dim converts a grid size, clamping negatives to 0 (WebGPU treats a 0 grid
// as a no-op; sizes over the device limit are left for its validation).
func dim(n int) uint32 {
	if n < 0 {
		return 0
	}
	if n > math.MaxUint32 {
		return math.MaxUint32
	}
	return uint32(n)
}
