package webgpu

import (
	"context"
	"encoding/binary"
	"math"
	"math/rand/v2"
	"testing"
	"time"
)

// openTest opens the default adapter and fails (never skips) when there is
// none: CI installs lavapipe, so a missing adapter is a broken environment.
func openTest(t testing.TB, opt Options) *Device {
	t.Helper()
	d, err := Open(context.Background(), opt)
	if err != nil {
		t.Fatalf("Open: %v (natively this needs a Vulkan driver: apt-get install mesa-vulkan-drivers)", err)
	}
	t.Cleanup(d.Close)
	return d
}

func testCtx(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// randF32 returns n random floats in [-2, 2), none zero, from a fresh seed
// logged for reproduction.
func randF32(t testing.TB, n int) []float32 {
	seed := rand.Uint64()
	t.Logf("random seed %d", seed)
	r := rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15))
	out := make([]float32, n)
	for i := range out {
		for out[i] == 0 {
			out[i] = float32(r.Float64()*4 - 2)
		}
	}
	return out
}

func f32Bytes(v []float32) []byte {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	return b
}

func bytesF32(b []byte) []float32 {
	v := make([]float32, len(b)/4)
	for i := range v {
		v[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return v
}

func u32Bytes(v ...uint32) []byte {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], x)
	}
	return b
}

func nan() float64 { return math.NaN() }
