package harness

import (
	"context"
	"strings"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// Heap is a worker's JS memory as Runtime.getHeapUsage reports it (the
// whole isolate): the used JS heap and the ArrayBuffer backing stores.
type Heap struct {
	Used, Backing float64
}

// WorkerHeaps returns the JS memory of every worker target the browser
// lists, by "title id" (the engine worker's title is its name,
// webgguf-engine).
func (b *Browser) WorkerHeaps(ctx context.Context) (map[string]Heap, error) {
	ts, err := chromedp.Targets(b.browserCtx)
	if err != nil {
		return nil, err
	}
	out := map[string]Heap{}
	for _, t := range ts {
		if t.Type != "worker" {
			continue
		}
		tctx, cancel := chromedp.NewContext(b.browserCtx, chromedp.WithTargetID(t.TargetID))
		var h Heap
		err := chromedp.Do(tctx, chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
			r, err := cdp.Call(ctx, tg, runtime.GetHeapUsage, cdp.Empty{})
			h = Heap{Used: r.UsedSize, Backing: r.BackingStorageSize}
			return err
		}))
		cancel()
		if err != nil {
			return out, err
		}
		out[t.Title+" "+string(t.TargetID)] = h
	}
	return out, nil
}

// SampleWorkerHeap polls WorkerHeaps every interval until ctx ends and
// returns the peaks seen over workers whose title contains title, and the
// last error, if any.
func (b *Browser) SampleWorkerHeap(ctx context.Context, title string, interval time.Duration) (peak Heap, seen int, err error) {
	for {
		hs, e := b.WorkerHeaps(ctx)
		if e != nil {
			err = e
		}
		for k, v := range hs {
			if strings.Contains(k, title) {
				seen++
				peak.Used, peak.Backing = max(peak.Used, v.Used), max(peak.Backing, v.Backing)
			}
		}
		select {
		case <-ctx.Done():
			return peak, seen, err
		case <-time.After(interval):
		}
	}
}
