package webgpu

import (
	"encoding/binary"
	"runtime"
	"sync"
	"testing"
)

// sink keeps the filler allocations of TestMapSurvivesGC reachable long
// enough to reuse the memory a collection freed.
var sink [][]byte

// TestMapSurvivesGC runs many concurrent readbacks and forces a collection
// (and refills the freed memory) between each map request (Tape.Run) and
// the poll that fires its callback (Readback.Read). The map callback's
// userdata must stay valid until the callback has run: cogentcore v0.23.0's
// Buffer.MapAsync handed C a pointer to a Go handle nothing kept alive,
// and this test panicked ("misuse of cgo.Handle") or crashed with it. The
// values read back are also checked against what was written.
func TestMapSurvivesGC(t *testing.T) {
	d := openTest(t, Options{})
	ctx := testCtx(t)
	const goroutines, rounds = 8, 40
	var wg sync.WaitGroup
	errs := make(chan error, goroutines*rounds)
	var sinkMu sync.Mutex
	for g := 0; g < goroutines; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			src, err := d.CreateBuffer("src", 4, UsageStorage|UsageCopyDst|UsageCopySrc)
			if err != nil {
				errs <- err
				return
			}
			defer src.Destroy()
			rb, err := d.NewReadback("gc", 4, 2)
			if err != nil {
				errs <- err
				return
			}
			tp := d.NewTape()
			tp.ReadInto(rb, src, 0)
			for i := 0; i < rounds; i++ {
				want := uint32(g*1000 + i + 1)
				if err := d.WriteBuffer(src, 0, u32Bytes(want)); err != nil {
					errs <- err
					return
				}
				if err := tp.Run(ctx); err != nil {
					errs <- err
					return
				}
				runtime.GC()
				fill := make([][]byte, 256)
				for j := range fill {
					fill[j] = make([]byte, 8+j%16)
					for k := range fill[j] {
						fill[j][k] = 0xA5
					}
				}
				sinkMu.Lock()
				sink = fill
				sinkMu.Unlock()
				var got [4]byte
				if err := rb.Read(ctx, got[:]); err != nil {
					errs <- err
					return
				}
				if v := binary.LittleEndian.Uint32(got[:]); v != want {
					t.Errorf("goroutine %d round %d: read %d, wrote %d", g, i, v, want)
				}
			}
		}(g)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}
