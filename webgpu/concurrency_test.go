package webgpu

import (
	"errors"
	"sync"
	"testing"
)

// TestConcurrentCreation creates valid buffers and pipelines on some
// goroutines while others create broken pipelines: each error must reach the
// goroutine that caused it (error scopes are a per-device stack).
func TestConcurrentCreation(t *testing.T) {
	d := openTest(t, Options{})
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for i := 0; i < 60; i++ {
				if g%2 == 0 {
					_, err := d.CreateComputePipeline("broken", "@compute @workgroup_size(1) fn main() { nope(); }", "main", nil)
					var ce *CompileError
					if !errors.As(err, &ce) {
						errs <- err
					}
					continue
				}
				b, err := d.CreateBuffer("ok", 1024, UsageStorage|UsageCopyDst)
				if err != nil {
					errs <- err
					continue
				}
				if _, err := d.CreateComputePipeline("counter", counterWGSL, "main", []BindingKind{Storage}); err != nil {
					errs <- err
				}
				b.Destroy()
			}
		}(g)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Errorf("misattributed or missing error: %v", err)
	}
}
