package webgpu

import (
	"encoding/binary"
	"errors"
	"fmt"
	"strings"
	"testing"
)

// counterReader reads counterTape's results and checks that they come in
// submission order: the k-th result (k from 1) is (100+k)*7+1.
type counterReader struct {
	t    *testing.T
	rb   *Readback
	next uint32
	dst  []byte
}

func newCounterReader(t *testing.T, rb *Readback) *counterReader {
	return &counterReader{t: t, rb: rb, next: 101, dst: make([]byte, 4)}
}

func (c *counterReader) read() {
	c.t.Helper()
	must(c.t, c.rb.Read(testCtx(c.t), c.dst))
	if got, want := binary.LittleEndian.Uint32(c.dst), c.next*7+1; got != want {
		c.t.Fatalf("readback = %d, want %d (result %d)", got, want, c.next-100)
	}
	c.next++
}

// maps returns how many readback maps d started so far.
func maps(d *Device) uint64 { return d.Stats().Maps }

// TestBatchReadbackMapsOncePerBatch: with a batch of 4, results come back
// in order through one map per 4 results in a steady pipeline of 6 in
// flight (the slot's map starts at the submit of its 4th result, not
// before), over hundreds of steps that reuse every slot, with nothing
// created on the device.
func TestBatchReadbackMapsOncePerBatch(t *testing.T) {
	d := openTest(t, Options{})
	ctx := testCtx(t)
	tp, _, rb := counterTapeBatch(t, d, 3, 4)
	if rb.Batch() != 4 {
		t.Fatalf("Batch() = %d, want 4", rb.Batch())
	}
	c := newCounterReader(t, rb)
	before := d.Stats()
	for i := 1; i <= 3; i++ {
		must(t, tp.Run(ctx))
		if maps(d) != before.Maps {
			t.Fatalf("a map started after %d of 4 results", i)
		}
	}
	must(t, tp.Run(ctx))
	if got := maps(d) - before.Maps; got != 1 {
		t.Fatalf("%d maps after a full batch, want 1", got)
	}
	// Steady state: 6 in flight, read one, submit one; 400 results.
	for range 2 {
		must(t, tp.Run(ctx))
	}
	for range 394 {
		c.read()
		must(t, tp.Run(ctx))
	}
	for rb.Pending() > 0 {
		c.read()
	}
	after := d.Stats()
	if after.Created != before.Created {
		t.Fatalf("objects created in the loop: %+v -> %+v", before, after)
	}
	if got := after.Maps - before.Maps; got != 100 {
		t.Fatalf("%d maps for 400 results in batches of 4, want 100", got)
	}
	if after.Submits-before.Submits != 400 {
		t.Fatalf("%d submits, want 400", after.Submits-before.Submits)
	}
}

// TestBatchReadbackPartialFlush: Read of a result whose batch is not full
// starts that slot's map (a flush) and returns the results in order; the
// flushed slot takes no more results, later ones start a new slot.
func TestBatchReadbackPartialFlush(t *testing.T) {
	d := openTest(t, Options{})
	ctx := testCtx(t)
	tp, _, rb := counterTapeBatch(t, d, 3, 4)
	c := newCounterReader(t, rb)
	m0 := maps(d)
	must(t, tp.Run(ctx))
	must(t, tp.Run(ctx))
	if maps(d) != m0 {
		t.Fatal("map started for a half batch at its submit")
	}
	c.read() // flushes the slot holding results 1 and 2
	if maps(d) != m0+1 {
		t.Fatalf("%d maps after reading a partial batch, want 1", maps(d)-m0)
	}
	// Results 3..6 go to the next slot (the flushed one is being read);
	// the 4th of them fills it and starts its map.
	for range 4 {
		must(t, tp.Run(ctx))
	}
	if maps(d) != m0+2 {
		t.Fatalf("%d maps after a flush and a full batch, want 2", maps(d)-m0)
	}
	if rb.Pending() != 5 {
		t.Fatalf("pending %d, want 5", rb.Pending())
	}
	for range 5 {
		c.read()
	}
	// One blocking step at a time (what RunArgmax does): one map each.
	for range 10 {
		must(t, tp.Run(ctx))
		c.read()
	}
	if maps(d) != m0+12 {
		t.Fatalf("%d maps, want 12", maps(d)-m0)
	}
}

// TestBatchReadbackFullRing: the ring is full when a result needs a fresh
// slot and every slot holds unread results; the refused Run submits
// nothing, changes nothing pending, and a slot is taken again only once
// all of its results were read.
func TestBatchReadbackFullRing(t *testing.T) {
	d := openTest(t, Options{})
	ctx := testCtx(t)
	tp, _, rb := counterTapeBatch(t, d, 2, 4)
	c := newCounterReader(t, rb)
	for range 8 {
		must(t, tp.Run(ctx))
	}
	full := func(what string) {
		t.Helper()
		sub, n := d.Stats().Submits, rb.Pending()
		if err := tp.Run(ctx); !errors.Is(err, ErrReadbackFull) {
			t.Fatalf("%s: %v, want ErrReadbackFull", what, err)
		}
		if d.Stats().Submits != sub || rb.Pending() != n {
			t.Fatalf("%s: the refused Run submitted or committed", what)
		}
	}
	full("9th result in 2 slots of 4")
	for i := range 3 {
		c.read()
		full(fmt.Sprintf("slot 0 partly read (%d of 4)", i+1))
	}
	c.read() // slot 0 is free again
	for range 4 {
		must(t, tp.Run(ctx))
	}
	full("slots 1 and 0 full again")
	for range 5 {
		c.read()
	}
	// Slot 1 is free, slot 0 holds 3 unread results: 4 more fit, then
	// the 5th needs slot 1... which is taken by the 4 just submitted.
	for range 4 {
		must(t, tp.Run(ctx))
	}
	full("slot 0 partly read, slot 1 full")
	for rb.Pending() > 0 {
		c.read()
	}
	if err := rb.Read(ctx, make([]byte, 4)); !errors.Is(err, ErrReadbackEmpty) {
		t.Fatalf("read of an empty ring: %v", err)
	}
	// A flushed partial slot counts as a whole slot: one result flushed
	// and read (its slot is free again), two in the other slot flushed by
	// reading one; the free slot takes 4 and the 5th has no slot.
	must(t, tp.Run(ctx))
	c.read()
	must(t, tp.Run(ctx))
	must(t, tp.Run(ctx))
	c.read() // flushes the 2-result slot
	for range 4 {
		must(t, tp.Run(ctx))
	}
	full("a flushed slot with 1 unread result, the other full")
	for rb.Pending() > 0 {
		c.read()
	}
}

// TestBatchReadbackTwoReadsPerRun: a tape reading into one batched ring
// twice per Run claims two consecutive places (across a slot boundary
// when the batch is odd), and both results come back in order.
func TestBatchReadbackTwoReadsPerRun(t *testing.T) {
	d := openTest(t, Options{})
	ctx := testCtx(t)
	p, err := d.CreateComputePipeline("counter", counterWGSL, "main", []BindingKind{Storage})
	must(t, err)
	cb := mustBuf(t, d, "counter", 8, UsageStorage|UsageCopySrc|UsageCopyDst)
	must(t, d.WriteBuffer(cb, 0, u32Bytes(100, 0)))
	bg, err := d.CreateBindGroup(p, []Binding{{Buffer: cb}})
	must(t, err)
	rb, err := d.NewBatchReadback("pair", 4, 3, 3)
	must(t, err)
	tp := d.NewTape()
	tp.Dispatch(p, bg, 1, 1, 1)
	tp.ReadInto(rb, cb, 0) // c0 = 100+k
	tp.ReadInto(rb, cb, 4) // c1 = (100+k)*7+1
	must(t, tp.Err())
	dst := make([]byte, 4)
	m0 := maps(d)
	for k := uint32(1); k <= 30; k++ {
		must(t, tp.Run(ctx))
		if k%3 == 0 {
			// 6 results: two full slots, both maps started.
			if got := maps(d) - m0; got != uint64(2*k/3) {
				t.Fatalf("after run %d: %d maps, want %d", k, got, 2*k/3)
			}
		}
		if k < 3 {
			continue // keep a few in flight
		}
		for _, want := range []uint32{100 + k - 2, (100+k-2)*7 + 1} {
			must(t, rb.Read(ctx, dst))
			if got := binary.LittleEndian.Uint32(dst); got != want {
				t.Fatalf("run %d: read %d, want %d", k-2, got, want)
			}
		}
	}
	// Runs 29 and 30 are pending: results 57 (slot of 55..57, two read)
	// and 58..60 (a full slot). The third slot takes run 31's two results
	// and run 32's first; its second needs a fourth slot: the ring is full,
	// and the refused Run commits neither of its two.
	must(t, tp.Run(ctx))
	if err := tp.Run(ctx); !errors.Is(err, ErrReadbackFull) {
		t.Fatalf("a run whose second result has no slot: %v, want ErrReadbackFull", err)
	}
	if rb.Pending() != 6 {
		t.Fatalf("pending %d, want 6", rb.Pending())
	}
	for k := uint32(29); k <= 31; k++ {
		for _, want := range []uint32{100 + k, (100+k)*7 + 1} {
			must(t, rb.Read(ctx, dst))
			if got := binary.LittleEndian.Uint32(dst); got != want {
				t.Fatalf("run %d: read %d, want %d", k, got, want)
			}
		}
	}
}

// TestBatchReadbackEncodeAhead: Encode claims a place in an open slot; a
// Read that flushes that slot before the Submit makes the encoding stale
// (the copy would land in a slot being mapped), and so does SetBatch.
// Without either, encoded steps commit in order as Run does.
func TestBatchReadbackEncodeAhead(t *testing.T) {
	d := openTest(t, Options{})
	ctx := testCtx(t)
	tp, _, rb := counterTapeBatch(t, d, 3, 4)
	c := newCounterReader(t, rb)
	m0 := maps(d)
	for range 4 {
		e, err := tp.Encode(ctx)
		must(t, err)
		must(t, e.Submit(ctx))
	}
	if maps(d) != m0+1 {
		t.Fatalf("%d maps after 4 encoded steps, want 1", maps(d)-m0)
	}
	must(t, tp.Run(ctx)) // result 5 opens the next slot
	e, err := tp.Encode(ctx)
	must(t, err)
	for range 5 {
		c.read() // the 5th read flushes the slot e claimed a place in
	}
	if err := e.Submit(ctx); err == nil || !strings.Contains(err.Error(), "taken since Encode") {
		t.Fatalf("Submit into a flushed slot: %v, want a stale-encoding error", err)
	}
	// Encoded under batch 4, the result would not start its slot's map;
	// under batch 1 it must: the encoding is stale. (Under batch 2 it
	// would still be right, and is accepted.)
	e, err = tp.Encode(ctx)
	must(t, err)
	must(t, rb.SetBatch(1))
	if err := e.Submit(ctx); err == nil {
		t.Fatal("Submit of an encoding made under another batch size succeeded")
	}
	must(t, rb.SetBatch(4))
	e, err = tp.Encode(ctx)
	must(t, err)
	must(t, rb.SetBatch(2))
	must(t, e.Submit(ctx))
	c.read()
	if rb.Pending() != 0 {
		t.Fatalf("pending %d", rb.Pending())
	}
	// Batch 2: the 2nd result starts a map.
	m1 := maps(d)
	must(t, tp.Run(ctx))
	must(t, tp.Run(ctx))
	if maps(d) != m1+1 {
		t.Fatalf("batch 2: %d maps after 2 results, want 1", maps(d)-m1)
	}
	c.read()
	c.read()
}

// TestBatchReadbackSetBatch: SetBatch takes [1, the created batch] and only
// with nothing pending; batch 1 maps at every submit like NewReadback.
func TestBatchReadbackSetBatch(t *testing.T) {
	d := openTest(t, Options{})
	ctx := testCtx(t)
	tp, _, rb := counterTapeBatch(t, d, 4, 4)
	var ve *ValidationError
	for _, n := range []int{0, 5} {
		if err := rb.SetBatch(n); !errors.As(err, &ve) {
			t.Errorf("SetBatch(%d): %v, want a ValidationError", n, err)
		}
	}
	must(t, tp.Run(ctx))
	if err := rb.SetBatch(2); !errors.As(err, &ve) {
		t.Errorf("SetBatch with a result pending: %v, want a ValidationError", err)
	}
	c := newCounterReader(t, rb)
	c.read()
	must(t, rb.SetBatch(1))
	m0 := maps(d)
	for range 4 {
		must(t, tp.Run(ctx))
	}
	if maps(d) != m0+4 {
		t.Fatalf("batch 1: %d maps for 4 results, want 4", maps(d)-m0)
	}
	if err := tp.Run(ctx); !errors.Is(err, ErrReadbackFull) {
		t.Fatalf("5th result in 4 slots of batch 1: %v", err)
	}
	for range 4 {
		c.read()
	}
	if _, err := d.NewBatchReadback("x", 4, 2, 0); !errors.As(err, &ve) {
		t.Errorf("batch 0: %v", err)
	}
	if _, err := d.NewBatchReadback("x", 1<<16, 2, 32); !errors.As(err, &ve) {
		t.Errorf("a 2 MiB slot: %v", err)
	}
}

// TestBatchReadbackFailedMap: when a slot's map fails, each of its results
// reads as the error (in order, so the pending count stays exact), the
// slot is unmapped, and the results of the next slot read normally.
func TestBatchReadbackFailedMap(t *testing.T) {
	d := openTest(t, Options{})
	ctx := testCtx(t)
	tp, _, rb := counterTapeBatch(t, d, 3, 4)
	for range 3 {
		must(t, tp.Run(ctx))
	}
	// The map of the flushed slot fails (wgpu-native aborts on a
	// destroyed buffer's map, so the failure is injected where the
	// backend would report it).
	// It fails once: the slot's other results must read as the same
	// error, not wait for the map again.
	fired := false
	rbFinishFault = func(s *rbSlot) error {
		if s.rb == rb && s.idx == 0 && !fired {
			fired = true
			return errors.New("injected map failure")
		}
		return nil
	}
	t.Cleanup(func() { rbFinishFault = nil })
	dst := make([]byte, 4)
	for i := range 3 {
		err := rb.Read(ctx, dst)
		if err == nil || !strings.Contains(err.Error(), `readback "token"`) {
			t.Fatalf("result %d of the failed slot: %v, want the map's error", i+1, err)
		}
		if rb.Pending() != 2-i {
			t.Fatalf("pending %d after %d failed reads", rb.Pending(), i+1)
		}
	}
	if rb.slots[0].buf.mapped || rb.slots[0].fill != 0 {
		t.Fatal("the failed slot was not released")
	}
	c := newCounterReader(t, rb)
	c.next = 104
	for range 4 {
		must(t, tp.Run(ctx))
	}
	for range 4 {
		c.read()
	}
}
