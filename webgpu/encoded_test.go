package webgpu

import (
	"encoding/binary"
	"testing"
)

// Encode/Submit: a tape encoded while its readback's previous result is
// still pending runs on the buffer contents written after Encode (queue
// order), fills the next ring slot in order, and refuses a second submit,
// a submit after another Run filled its slot, and a submit after Release.
func TestEncodeAheadThenSubmit(t *testing.T) {
	d := openTest(t, Options{})
	ctx := testCtx(t)
	tp, cb, rb := counterTape(t, d, 2)
	dst := make([]byte, 4)
	read := func(want uint32) {
		t.Helper()
		must(t, rb.Read(ctx, dst))
		if got := binary.LittleEndian.Uint32(dst); got != want {
			t.Fatalf("readback = %d, want %d", got, want)
		}
	}
	before := d.Stats()
	// Steady state of a sampled decode: step i is in flight, step i+1 is
	// encoded, step i is read, step i+1's input is written, then submitted.
	must(t, tp.Run(ctx)) // c0: 100 -> 101, reads 101*7+1
	for i := uint32(0); i < 50; i++ {
		e, err := tp.Encode(ctx)
		must(t, err)
		read((101+2*i)*7 + 1)
		// The host's input for the next step: c0 += 1 (skips a value),
		// written after the encode and before the submit.
		must(t, d.WriteBuffer(cb, 0, u32Bytes(101+2*i+1)))
		must(t, e.Submit(ctx))
		if err := e.Submit(ctx); err == nil {
			t.Fatal("second Submit of one encoding succeeded")
		}
	}
	read((101+2*50)*7 + 1)
	if got := d.Stats().Submits - before.Submits; got != 51 {
		t.Fatalf("%d submits, want 51", got)
	}
	// A Run between Encode and Submit fills the claimed slot: stale.
	e, err := tp.Encode(ctx)
	must(t, err)
	must(t, tp.Run(ctx))
	if err := e.Submit(ctx); err == nil {
		t.Fatal("Submit after another Run filled its readback slot succeeded")
	}
	read((101+2*50+1)*7 + 1)
	// Released encodings are not submitted and hold nothing.
	e, err = tp.Encode(ctx)
	must(t, err)
	e.Release()
	if err := e.Submit(ctx); err == nil {
		t.Fatal("Submit after Release succeeded")
	}
	if rb.Pending() != 0 {
		t.Fatalf("pending %d", rb.Pending())
	}
}
