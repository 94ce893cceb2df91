package cpu

import "sync"

// parallelFor splits [0, n) into at most threads contiguous chunks and runs
// fn on each, worker index w in [0, threads). Small n runs inline: a
// goroutine costs more than a few hundred multiply-adds.
func parallelFor(threads, n, minChunk int, fn func(w, lo, hi int)) {
	if n <= 0 {
		return
	}
	parts := min(threads, (n+minChunk-1)/minChunk)
	if parts <= 1 {
		fn(0, 0, n)
		return
	}
	var wg sync.WaitGroup
	for w := 1; w < parts; w++ {
		lo, hi := n*w/parts, n*(w+1)/parts
		wg.Add(1)
		go func() {
			defer wg.Done()
			fn(w, lo, hi)
		}()
	}
	// The caller takes the first share instead of idling in Wait.
	fn(0, 0, n/parts)
	wg.Wait()
}
