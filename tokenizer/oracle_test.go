package tokenizer

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/webgguf/webgguf/scripts/oracle"
)

// startOracle launches llama.cpp's oracle (scripts/oracle). It fails the
// test when node or the oracle's node_modules are missing (make deps
// installs them), unless WEBGGUF_NO_ORACLE=1 explicitly opts out.
func startOracle(t testing.TB) *oracle.Client {
	t.Helper()
	if os.Getenv("WEBGGUF_NO_ORACLE") == "1" {
		t.Skip("WEBGGUF_NO_ORACLE=1: llama.cpp oracle comparison disabled by request")
	}
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	c, err := oracle.Start(root)
	if errors.Is(err, oracle.ErrNotInstalled) {
		t.Fatalf("%v, or set WEBGGUF_NO_ORACLE=1", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}
