package webgpu

import "testing"

// TestInfo checks the reported limits for internal consistency and against
// the WebGPU specification's guaranteed minimums (a device must offer at
// least these), and logs the adapter.
func TestInfo(t *testing.T) {
	d := openTest(t, Options{})
	i := d.Info()
	t.Logf("adapter %q backend %s type %s fallback %v features %v", i.Adapter, i.Backend, i.AdapterType, i.Fallback, i.Features)
	t.Logf("limits %+v", i.Limits)
	l := i.Limits
	if i.Adapter == "" || i.Backend == "" {
		t.Errorf("empty adapter name or backend: %+v", i)
	}
	// Spec minimums (WebGPU "supported limits" defaults).
	if l.MaxBufferSize < 256<<20 || l.MaxStorageBufferBindingSize < 128<<20 || l.MaxComputeWorkgroupStorageSize < 16384 ||
		l.MaxComputeInvocationsPerWorkgroup < 256 || l.MaxComputeWorkgroupsPerDimension < 65535 || l.MaxStorageBuffersPerShaderStage < 8 {
		t.Errorf("limits below the WebGPU minimums: %+v", l)
	}
	for _, a := range []uint32{l.MinStorageBufferOffsetAlignment, l.MinUniformBufferOffsetAlignment} {
		if a == 0 || a&(a-1) != 0 || a > 256 {
			t.Errorf("alignment %d not a power of two <= 256", a)
		}
	}
	// The binding limit may exceed the buffer limit (NVIDIA: 2 GiB bindings);
	// Plan and CreateBindGroup use the smaller. The buffer limit must be real,
	// not the 256 MiB default that an "undefined" request gives.
	if !i.Fallback && l.MaxBufferSize <= 256<<20 {
		t.Errorf("maxBufferSize %d on a real GPU: adapter limit not requested", l.MaxBufferSize)
	}
	// DisableFeatures really removes a feature (tests of f32 fallbacks rely on it).
	if d.Has(FeatureShaderF16) {
		d2 := openTest(t, Options{DisableFeatures: []Feature{FeatureShaderF16}})
		if d2.Has(FeatureShaderF16) {
			t.Error("shader-f16 granted although disabled")
		}
	}
}
