package webgpu

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"testing"
)

func TestBufferRoundTripRandom(t *testing.T) {
	d := openTest(t, Options{})
	ctx := testCtx(t)
	seed := rand.Uint64()
	t.Logf("seed %d", seed)
	r := rand.New(rand.NewPCG(seed, 1))
	for _, size := range []uint64{4, 256, 4100, 1 << 20, 3<<20 + 12} {
		data := make([]byte, size)
		for i := range data {
			data[i] = byte(r.IntN(255) + 1) // never zero: a zeroed buffer must not pass
		}
		b := mustBuf(t, d, "rt", size, UsageStorage|UsageCopyDst|UsageCopySrc)
		must(t, d.WriteBuffer(b, 0, data))
		got, err := d.ReadBuffer(ctx, b, 0, size)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, data) {
			t.Fatalf("size %d: round trip differs", size)
		}
		// A partial write at an offset, read back through a sub-range.
		if size >= 256 {
			patch := data[:64]
			must(t, d.WriteBuffer(b, 128, patch))
			got, err := d.ReadBuffer(ctx, b, 120, 80)
			if err != nil {
				t.Fatal(err)
			}
			want := append(append(append([]byte{}, data[120:128]...), patch...), data[192:200]...)
			if !bytes.Equal(got, want) {
				t.Fatalf("size %d: partial write/read differs", size)
			}
		}
		b.Destroy()
	}
}

func TestBufferArgumentErrors(t *testing.T) {
	d := openTest(t, Options{})
	ctx := testCtx(t)
	b := mustBuf(t, d, "b", 64, UsageStorage|UsageCopyDst|UsageCopySrc)
	noDst := mustBuf(t, d, "nodst", 64, UsageStorage|UsageCopySrc)
	cases := []struct {
		name  string
		err   error
		field string
	}{
		{"zero size", second(d.CreateBuffer("z", 0, UsageStorage)), "size"},
		{"too big", second(d.CreateBuffer("big", d.Limits().MaxBufferSize+1, UsageStorage)), "size"},
		{"unaligned offset", d.WriteBuffer(b, 2, make([]byte, 4)), "offset"},
		{"unaligned length", d.WriteBuffer(b, 0, make([]byte, 3)), "size"},
		{"past end", d.WriteBuffer(b, 60, make([]byte, 8)), "offset"},
		{"no CopyDst", d.WriteBuffer(noDst, 0, make([]byte, 4)), "usage"},
		{"read past end", second(d.ReadBuffer(ctx, b, 32, 64)), "offset"},
	}
	for _, c := range cases {
		var ve *ValidationError
		if !errors.As(c.err, &ve) || ve.Field != c.field {
			t.Errorf("%s: got %v, want *ValidationError on field %q", c.name, c.err, c.field)
		}
	}
}

func second[T any](_ T, err error) error { return err }
