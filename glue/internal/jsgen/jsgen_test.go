package jsgen

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// TestGeneratedUpToDate fails when jsbindings/src or jsbindings/test holds
// a codec generated from an older schema: run `go generate ./glue/...`.
func TestGeneratedUpToDate(t *testing.T) {
	src, err := os.ReadFile("../../schema.go")
	if err != nil {
		t.Fatal(err)
	}
	files, err := Generate(src)
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range files {
		got, err := os.ReadFile(filepath.Join("../../../jsbindings", name))
		if err != nil {
			t.Fatalf("%v (run go generate ./glue/...)", err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("jsbindings/%s is stale: run go generate ./glue/...", name)
		}
	}
}
