package chat

import (
	"encoding/json"
	"os/exec"
	"testing"

	"github.com/webgguf/webgguf/chat/internal/gonja/builtins/methods/pystring"
)

// TestPythonWhitespace: the patched strip/split/trim whitespace set equals
// CPython's str.isspace over every code point.
func TestPythonWhitespace(t *testing.T) {
	out, err := exec.Command("python3", "-c",
		"import json; print(json.dumps([c for c in range(0x110000) if chr(c).isspace()]))").Output()
	if err != nil {
		t.Fatalf("python3: %v", err)
	}
	var want []rune
	if err := json.Unmarshal(out, &want); err != nil {
		t.Fatal(err)
	}
	isWant := map[rune]bool{}
	for _, r := range want {
		isWant[r] = true
	}
	for r := rune(0); r <= 0x10ffff; r++ {
		if pystring.IsPySpace(r) != isWant[r] {
			t.Errorf("U+%04X: IsPySpace %v, Python %v", r, pystring.IsPySpace(r), isWant[r])
		}
	}
}
