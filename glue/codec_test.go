package glue

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math"
	"math/rand/v2"
	"reflect"
	"testing"
)

// randomAllTypes fills every field with random, non-zero data.
func randomAllTypes(r *rand.Rand) *AllTypes {
	n := func() int { return 1 + r.IntN(9) }
	m := &AllTypes{
		B: true, I32: -int32(r.Uint32() >> 1), U32: r.Uint32() | 1, I64: -int64(r.Uint64() >> 1),
		F32: float32(r.NormFloat64()), F64: r.NormFloat64() * 1e300, S: "héllo ✓ " + string(rune('a'+r.IntN(26))),
		Raw: randBytes(r, 1+r.IntN(40)), Appended: 7,
	}
	for range n() {
		m.Bools = append(m.Bools, r.IntN(2) == 1)
		m.I32s = append(m.I32s, int32(r.Uint32()))
		m.U32s = append(m.U32s, r.Uint32())
		m.I64s = append(m.I64s, int64(r.Uint64()))
		m.F32s = append(m.F32s, float32(r.NormFloat64()))
		m.F64s = append(m.F64s, r.NormFloat64())
		m.Strings = append(m.Strings, []string{"", "s" + string(rune(0x4e00+r.IntN(100))), "\u00e9\U0001F600"}[r.IntN(3)])
		m.Raws = append(m.Raws, randBytes(r, 1+r.IntN(9)))
	}
	return m
}

func randBytes(r *rand.Rand, n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	b[0] |= 1 // never all zeros
	return b
}

func TestRoundTripAllTypes(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for i := range 200 {
		want := randomAllTypes(r)
		b, err := Encode(KindRequest, uint32(i), want)
		if err != nil {
			t.Fatal(err)
		}
		if binary.LittleEndian.Uint32(b[16:]) != uint32(len(b)) {
			t.Fatalf("total length field %d, frame %d bytes", binary.LittleEndian.Uint32(b[16:]), len(b))
		}
		h, got, err := Decode(b)
		if err != nil {
			t.Fatal(err)
		}
		if h.ID != uint32(i) || h.Kind != KindRequest || h.Type != 30 {
			t.Fatalf("header %+v", h)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("round trip:\n got %+v\nwant %+v", got, want)
		}
	}
}

// TestGoldenFrame checks the layout against bytes written out by hand from
// the format description in wire.go, not produced by the encoder.
func TestGoldenFrame(t *testing.T) {
	msg := &EchoRequest{Data: []byte{0xAA, 0xBB, 0xCC}, Text: "hi", DelayMs: 258}
	want := []byte{
		'G', 'L', 'U', 'E', 1, 0, 1, 0, // magic, version 1, kind request, flags
		18, 0, 0, 0, 7, 0, 0, 0, 58, 0, 0, 0, // type 18, id 7, total 58
		1, 0, 8, 0, 3, 0, 0, 0, // field 1 bytes, len 3 (offset 24..28)
		0, 0, 0, 0, 0xAA, 0xBB, 0xCC, // pad to 32, data
		2, 0, 7, 0, 2, 0, 0, 0, // field 2 string at 35, len 2 ends at 43
		0, 0, 0, 0, 0, 'h', 'i', // pad 43→48, text
		3, 0, 3, 0, 2, 1, 0, 0, // field 3 u32 = 258
	}
	got, err := Encode(KindRequest, 7, msg)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("encode:\n got % x\nwant % x", got, want)
	}
	var back EchoRequest
	if _, err := DecodeAs(want, &back); err != nil || !reflect.DeepEqual(&back, msg) {
		t.Fatalf("decode: %+v %v", back, err)
	}
}

func TestNegativeZeroAndNaNSurvive(t *testing.T) {
	m := &AllTypes{F32: float32(math.Copysign(0, -1)), F64: math.NaN()}
	b, err := Encode(KindEvent, 0, m)
	if err != nil {
		t.Fatal(err)
	}
	_, got, err := Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	g := got.(*AllTypes)
	if math.Float32bits(g.F32) != 1<<31 || !math.IsNaN(g.F64) {
		t.Fatalf("got %v %v", g.F32, g.F64)
	}
}

// futureFields is AllTypes as a newer peer might send it: optional fields
// of every wire type under ids this schema does not know.
type futureFields struct {
	_  struct{}  `glue:"type=30"`
	A  bool      `glue:"101"`
	B  int32     `glue:"102"`
	C  uint32    `glue:"103"`
	D  int64     `glue:"104"`
	E  float32   `glue:"105"`
	F  float64   `glue:"106"`
	G  string    `glue:"107"`
	H  []byte    `glue:"108"`
	I  []bool    `glue:"109"`
	J  []int32   `glue:"110"`
	K  []uint32  `glue:"111"`
	L  []int64   `glue:"112"`
	M  []float32 `glue:"113"`
	N  []float64 `glue:"114"`
	O  []string  `glue:"115"`
	P  [][]byte  `glue:"116"`
	X1 bool      `glue:"1"`
}

// TestUnknownFieldsSkipped: a frame from a newer peer, with fields of every
// wire type under ids this schema does not know interleaved with known ones,
// decodes to the known fields; an older peer reading a frame without them
// gets zero values.
func TestUnknownFieldsSkipped(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	want := randomAllTypes(r)
	fut := &futureFields{A: true, B: -5, C: 9, D: -1 << 40, E: 1.5, F: -2.25, G: "new", H: []byte{1, 2, 3},
		I: []bool{true, false}, J: []int32{-1}, K: []uint32{1, 2, 3}, L: []int64{-7}, M: []float32{0.5},
		N: []float64{1e-300}, O: []string{"a", "", "ccc"}, P: [][]byte{{9}, nil, {8, 7}}, X1: true}
	finfo, err := describe(reflect.TypeOf(*fut))
	if err != nil {
		t.Fatal(err)
	}
	// interleave: known fields, then the future ones (field 1 again would be a
	// duplicate, so drop X1), then nothing: hand-build with appendField.
	frame, err := Encode(KindResponse, 1, want)
	if err != nil {
		t.Fatal(err)
	}
	fv := reflect.ValueOf(fut).Elem()
	for i := range finfo.Fields {
		f := &finfo.Fields[i]
		if f.ID == 1 {
			continue
		}
		if frame, err = appendField(frame, 0, f, fv.Field(f.index)); err != nil {
			t.Fatal(err)
		}
	}
	binary.LittleEndian.PutUint32(frame[16:], uint32(len(frame)))
	_, got, err := Decode(frame)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("unknown fields changed the known ones:\n got %+v\nwant %+v", got, want)
	}
	// the newer peer decodes everything it sent
	var back futureFields
	if err := decodeFields(frame, finfo, reflect.ValueOf(&back).Elem()); err != nil {
		t.Fatal(err)
	}
	fut.X1 = want.B
	if !reflect.DeepEqual(&back, fut) {
		t.Fatalf("future fields:\n got %+v\nwant %+v", back, *fut)
	}
	// an older peer (no Appended field) reads a current frame: field 17 skipped
	old := *byID[30]
	old.Fields = old.Fields[:len(old.Fields)-1]
	old.byID = map[uint16]int{}
	for i, f := range old.Fields {
		old.byID[f.ID] = i
	}
	var o AllTypes
	if err := decodeFields(frame[:binary.LittleEndian.Uint32(frame[16:])], &old, reflect.ValueOf(&o).Elem()); err != nil {
		t.Fatal(err)
	}
	want.Appended = 0
	if !reflect.DeepEqual(&o, want) {
		t.Fatalf("older peer:\n got %+v\nwant %+v", o, want)
	}
}

// TestDecodeErrors checks the typed error, field and offset of each kind of
// malformed frame.
func TestDecodeErrors(t *testing.T) {
	good, _ := Encode(KindRequest, 3, &EchoRequest{Data: []byte{1, 2, 3}, Text: "hi", DelayMs: 1})
	mut := func(f func(b []byte) []byte) []byte { return f(append([]byte(nil), good...)) }
	le := binary.LittleEndian
	cases := []struct {
		name   string
		frame  []byte
		code   ErrorCode
		field  string
		offset int
	}{
		{"short", good[:10], ErrTruncated, "header", 10},
		{"magic", mut(func(b []byte) []byte { b[0] = 'X'; return b }), ErrBadMagic, "magic", 0},
		{"version", mut(func(b []byte) []byte { b[4] = 2; return b }), ErrVersion, "version", 4},
		{"kind", mut(func(b []byte) []byte { b[6] = 9; return b }), ErrKind, "kind", 6},
		{"length over buffer", mut(func(b []byte) []byte { le.PutUint32(b[16:], uint32(len(b)+1)); return b }), ErrLength, "length", 16},
		{"length under header", mut(func(b []byte) []byte { le.PutUint32(b[16:], 19); return b }), ErrLength, "length", 16},
		{"unknown type", mut(func(b []byte) []byte { le.PutUint32(b[8:], 9999); return b }), ErrUnknownType, "type", 8},
		{"bytes length overruns", mut(func(b []byte) []byte { le.PutUint32(b[24:], 1<<31); return b }), ErrTruncated, "Data", 24},
		{"wire type mismatch", mut(func(b []byte) []byte { b[22] = byte(WireString); return b }), ErrWireType, "Data", 22},
		{"unknown wire type", mut(func(b []byte) []byte { b[22] = 0x4f; return b }), ErrWireType, "", 22},
		{"duplicate", mut(func(b []byte) []byte { b[35] = 1; b[37] = byte(WireBytes); return b }), ErrDuplicate, "Data", 35},
		{"bad utf8", mut(func(b []byte) []byte { b[48] = 0xff; return b }), ErrUTF8, "Text", 39},
		{"field header cut", mut(func(b []byte) []byte { le.PutUint32(b[16:], 52); return b }), ErrTruncated, "", 50},
		{"u32 cut", mut(func(b []byte) []byte { le.PutUint32(b[16:], 56); return b }), ErrTruncated, "DelayMs", 54},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, _, err := Decode(c.frame)
			var de *DecodeError
			if !errors.As(err, &de) {
				t.Fatalf("want *DecodeError, got %v", err)
			}
			if de.Code != c.code || de.Field != c.field || de.Offset != c.offset {
				t.Fatalf("got code %s field %q offset %d (%v); want %s %q %d", de.Code, de.Field, de.Offset, err, c.code, c.field, c.offset)
			}
		})
	}
}

// TestEveryTruncationIsTypedError cuts a full frame at every byte (patching
// the total length) and checks each cut gives a DecodeError or, when the cut
// falls on a field boundary, a successful decode of a prefix of the fields.
func TestEveryTruncationIsTypedError(t *testing.T) {
	b, _ := Encode(KindEvent, 1, randomAllTypes(rand.New(rand.NewPCG(5, 6))))
	for cut := 0; cut < len(b); cut++ {
		f := append([]byte(nil), b[:cut]...)
		if cut >= HeaderSize {
			binary.LittleEndian.PutUint32(f[16:], uint32(cut))
		}
		_, _, err := Decode(f)
		var de *DecodeError
		if err != nil && !errors.As(err, &de) {
			t.Fatalf("cut %d: untyped error %v", cut, err)
		}
	}
}

func TestEncodeErrors(t *testing.T) {
	if _, err := Encode(KindRequest, 1, struct{ A int }{}); !IsCode(err, ErrNotMessage) {
		t.Fatalf("unregistered: %v", err)
	}
	if _, err := Encode(KindRequest, 1, (*EchoRequest)(nil)); !IsCode(err, ErrNotMessage) {
		t.Fatalf("nil: %v", err)
	}
	if _, err := Encode(Kind(0), 1, &EchoRequest{}); !IsCode(err, ErrKind) {
		t.Fatalf("kind: %v", err)
	}
	if _, err := Encode(KindRequest, 1, &EchoRequest{Text: "\xff"}); !IsCode(err, ErrUTF8) {
		t.Fatalf("utf8: %v", err)
	}
}

func TestLowerCamel(t *testing.T) {
	for in, want := range map[string]string{"Data": "data", "ID": "id", "URLPath": "urlPath", "F32s": "f32s", "DelayMs": "delayMs", "B": "b"} {
		if got := lowerCamel(in); got != want {
			t.Errorf("%s: got %s want %s", in, got, want)
		}
	}
}
