package gguf

import (
	"bytes"
	"errors"
	"runtime"
	"strings"
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

// allocated returns the bytes fn allocates.
func allocated(fn func()) uint64 {
	var m0, m1 runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&m0)
	fn()
	runtime.ReadMemStats(&m1)
	return m1.TotalAlloc - m0.TotalAlloc
}

// TestSmallFileCost checks that reading and writing a small file, or
// rejecting one, costs memory in proportion to the file rather than to
// fixed buffers (the 64 KiB read-ahead, the 1 MiB write buffer) or to
// claimed counts, and that a hostile 60 KiB key is cut in the error's
// field name. Before, FuzzOpen spent 548 µs and 350 KB an input on these
// (bufio's 1 MiB buffer twice, the 64 KiB read-ahead twice, quoting every
// key eagerly); after, 21 µs.
func TestSmallFileCost(t *testing.T) {
	data := sampleFile(t)
	var f *File
	var buf bytes.Buffer
	open := allocated(func() {
		var err error
		if f, err = Open(bytes.NewReader(data), int64(len(data))); err != nil {
			t.Fatal(err)
		}
	})
	tensors := make([]TensorData, len(f.Tensors))
	for i := range f.Tensors {
		raw, err := f.ReadTensor(&f.Tensors[i])
		if err != nil {
			t.Fatal(err)
		}
		tensors[i] = TensorData{Name: f.Tensors[i].Name, Type: f.Tensors[i].Type, Ne: f.Tensors[i].Ne, Data: raw}
	}
	buf.Grow(2 * len(data))
	write := allocated(func() {
		if err := Write(&buf, f.KV, tensors, int(f.Alignment)); err != nil {
			t.Fatal(err)
		}
	})
	if !bytes.Equal(buf.Bytes(), data) {
		t.Fatal("sample file does not round-trip")
	}
	t.Logf("%d-byte file: Open allocated %d bytes, Write %d", len(data), open, write)
	if limit := uint64(8 * len(data)); open > limit || write > limit {
		t.Errorf("Open allocated %d, Write %d bytes for a %d-byte file (limit %d)", open, write, len(data), limit)
	}

	// 2 000 claimed keys (as many as the bytes allow), the second bad.
	r := newRaw().hdr(0, 2000).kvU32("a", 1).str("b").u32(99)
	r.Write(make([]byte, 2000*13))
	bad := r.Bytes()
	reject := allocated(func() {
		if _, err := Open(bytes.NewReader(bad), int64(len(bad))); !errors.Is(err, ErrValueType) {
			t.Fatalf("got %v, want ErrValueType", err)
		}
	})
	t.Logf("%d-byte file claiming 2000 keys: rejected after %d bytes allocated", len(bad), reject)
	if reject > 2*uint64(len(bad)) {
		t.Errorf("rejecting a %d-byte file claiming 2000 keys allocated %d bytes", len(bad), reject)
	}

	long := newRaw().hdr(0, 1).str(strings.Repeat("\xff", 60<<10)).u32(99).Bytes()
	_, err := Open(bytes.NewReader(long), int64(len(long)))
	var fe *FormatError
	if !errors.As(err, &fe) || !errors.Is(err, ErrValueType) {
		t.Fatalf("got %v, want a FormatError with ErrValueType", err)
	}
	if len(fe.Field) > 300 || !strings.HasPrefix(fe.Field, `kv[0] "\xff`) || !strings.HasSuffix(fe.Field, `….type`) {
		t.Errorf("field name of a 60 KiB key: %.400q (%d bytes)", fe.Field, len(fe.Field))
	}
}
