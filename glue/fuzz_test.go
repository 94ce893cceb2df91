package glue

import (
	"errors"
	"math/rand/v2"
	"reflect"
	"testing"
)

// FuzzDecode feeds arbitrary bytes to the decoder. It must never panic or
// hang, must return only *DecodeError, and whatever it accepts must survive a
// re-encode: encode(decode(b)) decodes to the same message.
func FuzzDecode(f *testing.F) {
	r := rand.New(rand.NewPCG(7, 8))
	for i := range 4 {
		b, _ := Encode(Kind(1+i), uint32(i), randomAllTypes(r))
		f.Add(b)
	}
	for _, m := range []any{&EchoRequest{Data: []byte{1}, Text: "x"}, &Error{Kind: "k", Message: "m"}, &HelloResponse{Requests: []uint32{1, 2}}} {
		b, _ := Encode(KindResponse, 9, m)
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		h, msg, err := Decode(b)
		if err != nil {
			var de *DecodeError
			if !errors.As(err, &de) {
				t.Fatalf("untyped error %T %v", err, err)
			}
			if de.Offset < 0 || de.Offset > len(b) {
				t.Fatalf("offset %d outside frame of %d bytes", de.Offset, len(b))
			}
			return
		}
		again, err := Encode(h.Kind, h.ID, msg)
		if err != nil {
			t.Fatalf("re-encode of an accepted frame: %v", err)
		}
		_, back, err := Decode(again)
		if err != nil {
			t.Fatalf("decode of re-encoded frame: %v", err)
		}
		if !reflect.DeepEqual(normalize(back), normalize(msg)) {
			t.Fatalf("re-encode changed the message:\n%+v\n%+v", msg, back)
		}
	})
}

// normalize makes NaNs comparable for DeepEqual (NaN != NaN) by replacing the
// message with its encoding, which is canonical for a given value.
func normalize(m any) any {
	b, _ := Encode(KindEvent, 0, m)
	return b
}
