package webgpu

import "time"

// Usage is a set of WebGPU buffer usage flags. The values are those of the
// WebGPU specification (GPUBufferUsage), identical natively and in the browser.
type Usage uint32

// Buffer usages (GPUBufferUsage).
const (
	UsageMapRead      Usage = 0x0001
	UsageMapWrite     Usage = 0x0002
	UsageCopySrc      Usage = 0x0004
	UsageCopyDst      Usage = 0x0008
	UsageIndex        Usage = 0x0010
	UsageVertex       Usage = 0x0020
	UsageUniform      Usage = 0x0040
	UsageStorage      Usage = 0x0080
	UsageIndirect     Usage = 0x0100
	UsageQueryResolve Usage = 0x0200
)

// BindingKind is the type of one binding of a compute pipeline's single bind
// group (@group(0) @binding(i), i = index in the layout slice).
type BindingKind uint8

// Binding kinds.
const (
	Uniform         BindingKind = iota // var<uniform>
	ReadOnlyStorage                    // var<storage, read>
	Storage                            // var<storage, read_write>
)

func (k BindingKind) String() string {
	switch k {
	case Uniform:
		return "uniform"
	case ReadOnlyStorage:
		return "read-only-storage"
	case Storage:
		return "storage"
	}
	return "invalid"
}

// Binding is one entry of a bind group: a range of a buffer. Size 0 means
// "from Offset to the end of the buffer" (resolved to an explicit size, since
// the JS side passes 0 literally).
type Binding struct {
	Buffer *Buffer
	Offset uint64
	Size   uint64
}

// PowerPreference selects between adapters on multi-GPU systems.
type PowerPreference uint8

// Power preferences.
const (
	PowerDefault PowerPreference = iota
	PowerLow
	PowerHigh
)

// Feature names a WebGPU feature the engine can use, spelled as in the WebGPU
// specification.
type Feature string

// Features the engine cares about.
const (
	FeatureShaderF16      Feature = "shader-f16"
	FeatureSubgroups      Feature = "subgroups"
	FeatureTimestampQuery Feature = "timestamp-query"
)

// Options configure Open.
type Options struct {
	PowerPreference PowerPreference
	// RequireFeatures must all be available or Open fails. Features in
	// {shader-f16, subgroups, timestamp-query} that the adapter has are
	// requested anyway; Info().Features says which were granted.
	RequireFeatures []Feature
	// DisableFeatures are not requested even when available: tests use it to
	// exercise the f32 fallback paths (shader-f16 off) on hardware that has them.
	DisableFeatures []Feature
}

// Limits are the device limits that matter for compute, as granted (the
// adapter's maxima are requested, not the WebGPU defaults).
type Limits struct {
	MaxBufferSize                     uint64
	MaxStorageBufferBindingSize       uint64
	MaxUniformBufferBindingSize       uint64
	MinStorageBufferOffsetAlignment   uint32
	MinUniformBufferOffsetAlignment   uint32
	MaxStorageBuffersPerShaderStage   uint32
	MaxBindingsPerBindGroup           uint32
	MaxComputeWorkgroupStorageSize    uint32
	MaxComputeInvocationsPerWorkgroup uint32
	MaxComputeWorkgroupSizeX          uint32
	MaxComputeWorkgroupSizeY          uint32
	MaxComputeWorkgroupSizeZ          uint32
	MaxComputeWorkgroupsPerDimension  uint32
}

// Info describes the opened device.
type Info struct {
	Adapter      string // device name, e.g. "llvmpipe (LLVM 19.1.7, 256 bits)"
	Vendor       string
	Architecture string
	Driver       string
	Backend      string // "Vulkan", "Metal", ..., or "WebGPU" in the browser
	AdapterType  string // "CPU", "DiscreteGPU", ...
	Fallback     bool   // software adapter (lavapipe, SwiftShader)
	// SubgroupMinSize and SubgroupMaxSize bound the subgroup size when the
	// subgroups feature is granted (browser only; 0 when unknown).
	SubgroupMinSize uint32
	SubgroupMaxSize uint32
	Features        []Feature
	Limits          Limits
}

// Has reports whether feature f was granted.
func (i *Info) Has(f Feature) bool {
	for _, g := range i.Features {
		if g == f {
			return true
		}
	}
	return false
}

// Stats counts objects created on the device since Open. The token loop must
// leave Created unchanged: a test reads it before and after decoding.
type Stats struct {
	Buffers    uint64
	BindGroups uint64
	Pipelines  uint64 // compiled pipelines, cache hits excluded
	Created    uint64 // sum of the three
	Submits    uint64
	Maps       uint64 // Readback slot maps started: one per batch of results
	// CreateWait is the host time spent in the backend's buffer, bind
	// group and pipeline creation calls: in the browser mostly the round
	// trips to the GPU process that each creation's error scopes (and a
	// shader module's compilation info) wait for; natively wgpu-core's own
	// work. SettleWait is the time WaitPipelines blocked on pipelines still
	// compiling in the background (browser). Both show where a model
	// load's compile phases go (the worker's load-phases debug line).
	CreateWait time.Duration
	SettleWait time.Duration
}
