package chat

import (
	"os"
	"path/filepath"
	"sync"
	"testing"
)

// TestConcurrentRender: one parsed Template serves several goroutines, each
// getting the same prompt as a lone render (run with -race to check for
// shared state).
func TestConcurrentRender(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("testdata", "templates", "qwen3-gguf.jinja"))
	if err != nil {
		t.Fatal(err)
	}
	tpl, err := Parse(string(src))
	if err != nil {
		t.Fatal(err)
	}
	msgs := []Message{{Role: "system", Content: "s"}, {Role: "user", Content: "u"}}
	want, err := tpl.Render(msgs, Options{AddGenerationPrompt: true})
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make(chan string, 8)
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 20; i++ {
				got, err := tpl.Render(msgs, Options{AddGenerationPrompt: true})
				if err != nil || got != want {
					errs <- got
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for got := range errs {
		t.Errorf("concurrent render differs: %q", got)
	}
}
