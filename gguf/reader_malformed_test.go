package gguf

import (
	"bytes"
	"encoding/binary"
	"errors"
	"strings"
	"testing"
)

// raw assembles GGUF bytes field by field, so malformed files can be built
// on purpose; mark records offsets for the expected errors.
type raw struct {
	bytes.Buffer
	marks map[string]int64
}

func newRaw() *raw { return &raw{marks: map[string]int64{}} }

func (r *raw) mark(name string) *raw { r.marks[name] = int64(r.Len()); return r }
func (r *raw) u32(v uint32) *raw {
	binary.Write(r, binary.LittleEndian, v)
	return r
}
func (r *raw) u64(v uint64) *raw {
	binary.Write(r, binary.LittleEndian, v)
	return r
}
func (r *raw) str(s string) *raw { r.u64(uint64(len(s))); r.WriteString(s); return r }

// hdr writes magic, version 3 and the two counts.
func (r *raw) hdr(nt, nkv uint64) *raw { return r.u32(ggufMagic).u32(3).u64(nt).u64(nkv) }

// kvU32 writes a uint32 KV.
func (r *raw) kvU32(k string, v uint32) *raw { return r.str(k).u32(uint32(ValueUint32)).u32(v) }

// ti writes a tensor info.
func (r *raw) ti(name string, t GGMLType, off uint64, ne ...uint64) *raw {
	r.str(name).u32(uint32(len(ne)))
	for _, d := range ne {
		r.u64(d)
	}
	return r.u32(uint32(t)).mark(name + ".offset").u64(off)
}

// data pads to 32 and appends n non-zero bytes.
func (r *raw) data(n int) *raw {
	for r.Len()%32 != 0 {
		r.WriteByte(0)
	}
	r.Write(bytes.Repeat([]byte{0x5a}, n))
	return r
}

// TestMalformed checks that each kind of bad input gives its typed error,
// naming the right field and byte offset.
func TestMalformed(t *testing.T) {
	type tc struct {
		name  string
		file  *raw
		err   error
		off   string // mark name, or "" with offAt
		offAt int64
		field string // substring of FormatError.Field
	}
	nested := newRaw().hdr(0, 1).str("deep").u32(uint32(ValueArray))
	for i := 0; i < MaxNesting; i++ {
		nested.u32(uint32(ValueArray)).u64(1)
	}
	nested.mark("deep").u32(uint32(ValueUint8)).u64(1).WriteByte(1)
	longKey := newRaw().hdr(0, 1).mark("k").str(strings.Repeat("k", MaxNameLen+1)).u32(0).u32(0)
	cases := []tc{
		{"empty", newRaw(), ErrTruncated, "", 0, "magic"},
		{"bad magic", func() *raw { r := newRaw(); r.WriteString("GGUX"); return r.u32(3) }(), ErrMagic, "", 0, "magic"},
		{"version 1", newRaw().u32(ggufMagic).u32(1).u64(0).u64(0), ErrVersion, "", 4, "version"},
		{"big-endian", newRaw().u32(ggufMagic).u32(3 << 24).u64(0).u64(0), ErrVersion, "", 4, "version"},
		{"tensor count too large", newRaw().u32(ggufMagic).u32(3).u64(1 << 40).u64(0), ErrTooLarge, "", 8, "tensor_count"},
		{"kv count too large", newRaw().hdr(0, 1<<62), ErrTooLarge, "", 16, "kv_count"},
		{"truncated counts", newRaw().u32(ggufMagic).u32(3).u32(0), ErrTruncated, "", 8, "tensor_count"},
		{"key longer than file", newRaw().hdr(0, 1).u64(1 << 20).u32(0).u32(0).u32(0), ErrTooLarge, "", 24, "kv[0].key"},
		{"key longer than limit", longKey, ErrNameLength, "k", 0, "kv[0].key"},
		{"unknown value type", newRaw().hdr(0, 1).str("a.b").mark("t").u32(13).u64(0), ErrValueType, "t", 0, `"a.b".type`},
		{"string value past end", newRaw().hdr(0, 1).str("s").u32(uint32(ValueString)).mark("v").u64(100).u32(0), ErrTooLarge, "v", 0, `"s"`},
		{"array count past end", newRaw().hdr(0, 1).str("a").u32(uint32(ValueArray)).u32(uint32(ValueUint32)).mark("c").u64(1000).u64(0), ErrTooLarge, "c", 0, `"a".count`},
		{"string array count past end", newRaw().hdr(0, 1).str("a").u32(uint32(ValueArray)).u32(uint32(ValueString)).mark("c").u64(3).u64(0).u64(0), ErrTooLarge, "c", 0, `"a".count`},
		{"string array element past end", newRaw().hdr(0, 1).str("a").u32(uint32(ValueArray)).u32(uint32(ValueString)).u64(2).str("x").mark("e").u64(50).u64(0).u64(0).u64(0).u64(0).u64(0).u64(0), ErrTooLarge, "e", 0, `"a"[1]`},
		{"unknown array element type", newRaw().hdr(0, 1).str("a").u32(uint32(ValueArray)).mark("e").u32(99).u64(0), ErrValueType, "e", 0, `"a".elem_type`},
		{"nesting too deep", nested, ErrNesting, "deep", 0, `"deep"[0][0][0][0][0][0][0][0]`},
		{"nested array count past end", newRaw().hdr(0, 1).str("n").u32(uint32(ValueArray)).u32(uint32(ValueArray)).u64(2).u32(uint32(ValueUint8)).u64(0).u32(uint32(ValueUint16)).mark("c").u64(9).u64(0), ErrTooLarge, "c", 0, `"n"[1].count`},
		{"truncated value", newRaw().hdr(0, 1).str("x").u32(uint32(ValueUint64)).mark("v").u32(7), ErrTruncated, "v", 0, `"x"`},
		{"duplicate key", newRaw().hdr(0, 2).kvU32("a", 1).mark("dup").kvU32("a", 2), ErrDuplicateKey, "dup", 0, `kv[1] "a"`},
		{"alignment not power of two", newRaw().hdr(0, 2).kvU32("x", 1).mark("a").kvU32("general.alignment", 48), ErrAlignment, "a", 0, "general.alignment"},
		{"alignment zero", newRaw().hdr(0, 1).mark("a").kvU32("general.alignment", 0), ErrAlignment, "a", 0, "general.alignment"},
		{"alignment a string", newRaw().hdr(0, 1).mark("a").str("general.alignment").u32(uint32(ValueString)).str("32"), ErrAlignment, "a", 0, "general.alignment"},
		{"too many dims", newRaw().hdr(1, 0).str("w").mark("nd").u32(5).u64(1).u64(1).u64(1).u64(1).u64(1).u32(0).u64(0), ErrDims, "nd", 0, `"w".n_dims`},
		{"zero dims", newRaw().hdr(1, 0).str("w").mark("nd").u32(0).u32(0).u64(0).u64(0).u64(0), ErrDims, "nd", 0, `"w".n_dims`},
		{"dim above int64", newRaw().hdr(1, 0).str("w").u32(2).u64(4).mark("ne1").u64(1 << 63).u32(0).u64(0), ErrDims, "ne1", 0, `"w".ne[1]`},
		{"element count overflows", newRaw().hdr(1, 0).str("w").u32(3).u64(1 << 32).u64(1 << 30).mark("ne2").u64(4).u32(0).u64(0), ErrOverflow, "ne2", 0, `"w".ne[2]`},
		{"unknown ggml type", newRaw().hdr(1, 0).str("w").u32(1).u64(32).mark("t").u32(4).u64(0), ErrTensorType, "t", 0, `"w".type`},
		{"row not whole blocks", newRaw().hdr(1, 0).str("w").u32(2).mark("ne0").u64(33).u64(1).u32(uint32(TypeQ4_0)).u64(0), ErrBlockSize, "ne0", 0, `"w".ne[0]`},
		{"misaligned offset", newRaw().hdr(2, 0).ti("a", TypeF32, 0, 8).ti("b", TypeF32, 40, 8).data(96), ErrMisaligned, "b.offset", 0, `"b".offset`},
		{"data past end of file", newRaw().hdr(2, 0).ti("a", TypeF32, 0, 8).ti("b", TypeF32, 32, 9).data(64), ErrTensorBounds, "b.offset", 0, `"b".offset`},
		{"offset far past end", newRaw().hdr(1, 0).ti("a", TypeF32, 1<<62, 8).data(32), ErrTensorBounds, "a.offset", 0, `"a".offset`},
		{"overlapping tensors", newRaw().hdr(2, 0).ti("a", TypeF32, 0, 16).ti("b", TypeF32, 32, 8).data(96), ErrOverlap, "b.offset", 0, `"b".offset`},
		{"duplicate tensor", newRaw().hdr(2, 0).ti("a", TypeF32, 0, 8).mark("dup").ti("a", TypeF32, 32, 8).data(64), ErrDuplicateTensor, "dup", 0, `tensor[1] "a"`},
		{"truncated tensor info", newRaw().hdr(1, 0).str("w").u32(2).u64(32).mark("ne1").u32(1), ErrTruncated, "ne1", 0, `"w".ne`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			data := c.file.Bytes()
			_, err := Open(bytes.NewReader(data), int64(len(data)))
			var fe *FormatError
			if !errors.As(err, &fe) {
				t.Fatalf("got %v, want a *FormatError", err)
			}
			if !errors.Is(err, c.err) {
				t.Errorf("got %v, want %v", err, c.err)
			}
			want := c.offAt
			if c.off != "" {
				m, ok := c.file.marks[c.off]
				if !ok {
					t.Fatalf("test bug: no mark %q", c.off)
				}
				want = m
			}
			if fe.Offset != want {
				t.Errorf("offset %d, want %d (%v)", fe.Offset, want, err)
			}
			if !strings.Contains(fe.Field, c.field) {
				t.Errorf("field %q does not name %q", fe.Field, c.field)
			}
		})
	}
}

// TestTruncatedEverywhere cuts a valid file at every length and checks
// that each prefix gives a typed error (or, for prefixes that keep all
// tensor data, parses) and never panics.
func TestTruncatedEverywhere(t *testing.T) {
	data := sampleFile(t)
	full, err := Open(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	var end int64 // end of the last tensor's data; padding after it is optional
	for _, ti := range full.Tensors {
		end = max(end, full.DataOffset+int64(ti.Offset)+ti.Size)
	}
	for n := 0; n < len(data); n++ {
		_, err := Open(bytes.NewReader(data[:n]), int64(n))
		if int64(n) >= end {
			if err != nil {
				t.Fatalf("prefix %d holds all tensor data but fails: %v", n, err)
			}
			continue
		}
		var fe *FormatError
		if err == nil || !errors.As(err, &fe) {
			t.Fatalf("prefix of %d/%d bytes: %v", n, len(data), err)
		}
		if fe.Offset < 0 || fe.Offset > int64(n) {
			t.Fatalf("prefix %d: offset %d outside the input", n, fe.Offset)
		}
	}
}
