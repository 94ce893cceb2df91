package harness

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/webgguf/webgguf/glue"
)

// TestReleaseLacksTestOnly checks that the test-only code stays out of the
// release engine: no test message (glue/testmessages.go) is linked into
// engine.wasm (a registered message's Go type name is in the binary), nor
// the benchmark page knobs, while the test engine has them all (so the
// check can fail); the release JavaScript codec has no test message.
func TestReleaseLacksTestOnly(t *testing.T) {
	root, err := RepoRoot(".")
	if err != nil {
		t.Fatal(err)
	}
	dir, err := opfsBuild(context.Background(), root)
	if err != nil {
		t.Fatal(err)
	}
	release, err := os.ReadFile(filepath.Join(dir, "engine.wasm"))
	if err != nil {
		t.Fatal(err)
	}
	test, err := os.ReadFile(filepath.Join(dir, "engine-test.wasm"))
	if err != nil {
		t.Fatal(err)
	}
	var markers, releaseMarkers []string
	for _, m := range glue.Schema() {
		if m.Test {
			markers = append(markers, "glue."+m.Name)
		} else {
			releaseMarkers = append(releaseMarkers, "glue."+m.Name)
		}
	}
	if len(markers) < 10 {
		t.Fatalf("only %d test messages in the schema: %v", len(markers), markers)
	}
	markers = append(markers, "webggufPipelineDepth", "webggufReadbackBatch", "webggufProfile")
	for _, s := range markers {
		if bytes.Contains(release, []byte(s)) {
			t.Errorf("release engine.wasm contains %q", s)
		}
		if !bytes.Contains(test, []byte(s)) {
			t.Errorf("engine-test.wasm lacks %q (the check above proves nothing)", s)
		}
	}
	for _, s := range releaseMarkers {
		if !bytes.Contains(release, []byte(s)) {
			t.Errorf("release engine.wasm lacks %q", s)
		}
	}
	for _, f := range []string{"glue.gen.js", "glue.gen.d.ts"} {
		js, err := os.ReadFile(filepath.Join(root, "jsbindings", "src", f))
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range glue.Schema() {
			if m.Test && bytes.Contains(js, []byte(m.Name)) {
				t.Errorf("jsbindings/src/%s names the test message %s", f, m.Name)
			}
		}
	}
	t.Logf("release engine.wasm %d bytes, engine-test.wasm %d bytes", len(release), len(test))
}
