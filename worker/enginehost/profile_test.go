package enginehost

import (
	"context"
	"strings"
	"testing"
)

// fakeProfiler records what the host asks of a profiling backend.
type fakeProfiler struct {
	recording bool
	runs      int
	title     string
}

func (f *fakeProfiler) RecordSteps(on bool) { f.recording = on }

func (f *fakeProfiler) ProfileReport(_ context.Context, runs int, title string) (string, error) {
	f.runs, f.title = runs, title
	return title + "\n| kernel |", nil
}

// TestProfileDropsPrefixCache: a profile after a completion reports the
// last step's position and drops the prefix cache (the profiled re-run may
// rewrite that position's KV row from a placeholder token), so the same
// request again prefills its whole prompt and gives the same tokens.
func TestProfileDropsPrefixCache(t *testing.T) {
	ctx := context.Background()
	h := loadHost(t, gotiny, 256)
	req := greedy(6)
	req.Prompt = "func main() {"
	first, err := h.Generate(ctx, req, func(int32, string) error { return nil })
	if err != nil {
		t.Fatal(err)
	}
	if p := h.profileLast(ctx); p != "" {
		t.Fatalf("profile without a profiler: %q", p)
	}
	fp := &fakeProfiler{}
	h.m.prof = fp
	p := h.profileLast(ctx)
	pos := int(first.PromptTokens + first.CompletionTokens - 1)
	if !strings.Contains(p, "profile of the last decode step at position ") || !strings.Contains(p, "| kernel |") || fp.runs != 5 {
		t.Fatalf("profile %q (runs %d)", p, fp.runs)
	}
	if got := h.m.eng.Pos(); !strings.HasSuffix(fp.title, " "+itoa(int64(got))) || got != pos {
		t.Errorf("title %q, engine at %d, want position %d", fp.title, got, pos)
	}
	again, err := h.Generate(ctx, req, func(int32, string) error { return nil })
	if err != nil {
		t.Fatal(err)
	}
	if again.CachedTokens != 0 || again.Text != first.Text {
		t.Errorf("after a profile: %d cached tokens, text %q; want 0 and %q", again.CachedTokens, again.Text, first.Text)
	}
	// Without a profile in between, the prompt is reused.
	h.m.prof = nil
	third, err := h.Generate(ctx, req, func(int32, string) error { return nil })
	if err != nil {
		t.Fatal(err)
	}
	if third.CachedTokens == 0 {
		t.Error("no prefix reused without a profile")
	}
}
