package gguf

import (
	"bytes"
	"runtime"
	"testing"
)

// TestAllocationBound checks that the metadata shapes that cost the most
// memory per file byte (arrays of empty arrays, arrays of empty strings)
// allocate at most 5× the file size: memory stays proportional to input.
func TestAllocationBound(t *testing.T) {
	const n = 1 << 18
	for _, et := range []ValueType{ValueArray, ValueString, ValueBool} {
		r := newRaw().hdr(0, 1).str("a").u32(uint32(ValueArray)).u32(uint32(et)).u64(n)
		for i := 0; i < n; i++ {
			switch et {
			case ValueArray:
				r.u32(uint32(ValueUint8)).u64(0)
			case ValueString:
				r.u64(0)
			case ValueBool:
				r.WriteByte(1)
			}
		}
		data := r.Bytes()
		var m0, m1 runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&m0)
		f, err := Open(bytes.NewReader(data), int64(len(data)))
		runtime.ReadMemStats(&m1)
		if err != nil {
			t.Fatal(err)
		}
		if v, _ := f.Value("a"); v.Len() != n {
			t.Fatalf("%v: %d elements", et, v.Len())
		}
		alloc := m1.TotalAlloc - m0.TotalAlloc
		ratio := float64(alloc) / float64(len(data))
		t.Logf("%v: %d file bytes, %d allocated (%.1f×)", et, len(data), alloc, ratio)
		if ratio > 5 {
			t.Errorf("%v: %.1f× the file size allocated", et, ratio)
		}
	}
}
