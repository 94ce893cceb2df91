package gen

import (
	"os"
	"path/filepath"
	"testing"
)

// The gemma-2-2b preset writes Gemma 2's chat template: Gemma 1's
// (gemma-7b-it) after bos_token.
func TestGemma2Template(t *testing.T) {
	real, err := os.ReadFile(filepath.Join("..", "chat", "testdata", "templates", "gemma-7b-it.jinja"))
	if err != nil {
		t.Fatal(err)
	}
	if want := "{{ bos_token }}" + string(real); gemma2ChatTemplate != want {
		t.Errorf("gemma2ChatTemplate is %q, want %q", gemma2ChatTemplate, want)
	}
	c, _ := Preset("gemma-2-2b")
	if c.ChatTemplate != gemma2ChatTemplate || c.AttnSoftcap != 50 || c.FinalSoftcap != 30 || c.Window != 4096 {
		t.Errorf("gemma-2-2b preset: %+v", c)
	}
}
