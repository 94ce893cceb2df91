package enginehost

import (
	"context"
	"errors"
	"os"
	"testing"

	"github.com/webgguf/webgguf/compute"
	"github.com/webgguf/webgguf/compute/cpu"
	"github.com/webgguf/webgguf/glue"
	"github.com/webgguf/webgguf/opfs"
)

// countingBackend is the CPU backend under the name "webgpu", counting
// Close calls: a load that fails or is canceled must hand back what it
// took (on the real GPU backend Close destroys the device and with it
// every buffer).
type countingBackend struct {
	compute.Backend
	closed *int
}

func (b countingBackend) Close() error {
	*b.closed++
	return b.Backend.Close()
}

// TestCanceledLoadFreesBackend: canceling a load midway through the
// weights returns "canceled", closes the backend it opened, leaves no model,
// and the next load works.
func TestCanceledLoadFreesBackend(t *testing.T) {
	data, err := os.ReadFile(gotiny)
	if err != nil {
		t.Fatal(err)
	}
	opened, closed := 0, 0
	h := New()
	h.SetBackend("webgpu", func(context.Context) (compute.Backend, error) {
		opened++
		return countingBackend{cpu.New(1), &closed}, nil
	})
	ctx, cancel := context.WithCancel(context.Background())
	var calls int
	_, err = h.Load(ctx, data, LoadOptions{NCtx: 64, Backend: "webgpu", Progress: func(done, total int64) {
		if calls++; done*2 >= total {
			cancel()
		}
	}})
	if kind(err) != "canceled" || calls == 0 {
		t.Fatalf("canceled load: %v (%s) after %d progress calls", err, kind(err), calls)
	}
	if opened != 1 || closed != 1 {
		t.Fatalf("backends opened %d, closed %d", opened, closed)
	}
	if info, _ := h.Info(context.Background()); info.Loaded {
		t.Fatal("a canceled load left a model")
	}
	info, err := h.Load(context.Background(), data, LoadOptions{NCtx: 64, Backend: "webgpu"})
	if err != nil || info.Backend != "webgpu" || info.Source != "bytes" {
		t.Fatalf("load after cancel: %v %+v", err, info)
	}
	if _, err := h.Unload(context.Background()); err != nil || closed != 2 {
		t.Fatalf("unload: %v, closed %d", err, closed)
	}
}

// TestLoadRequestSources: a request names one source; the cache, URL and
// Blob sources are the browser's, natively they are an invalid argument.
func TestLoadRequestSources(t *testing.T) {
	h := New()
	ctx := context.Background()
	for _, req := range []*glue.ModelLoadRequest{
		{Data: []byte("GGUF"), Key: "k"},
		{Key: "k", URL: "http://x/m.gguf"},
		{URL: "http://x/m.gguf", BlobID: "b"},
	} {
		if _, err := h.loadRequest(ctx, req, LoadOptions{}); kind(err) != KindInvalidArgument {
			t.Errorf("%+v: %v (%s)", req, err, kind(err))
		}
	}
	if _, err := h.loadRequest(ctx, &glue.ModelLoadRequest{Key: "k"}, LoadOptions{}); kind(err) != KindInvalidArgument {
		t.Errorf("cache key natively: %v (%s)", err, kind(err))
	}
	if _, err := h.loadRequest(ctx, &glue.ModelLoadRequest{}, LoadOptions{}); kind(err) != KindBadFile {
		t.Errorf("no source: %v (%s)", err, kind(err))
	}
}

// TestSourceErrorKinds: a source's failure keeps its kind through gguf's
// wrapping (the page tells "not cached" and "network" from a bad file);
// a file that ends early is a bad file.
func TestSourceErrorKinds(t *testing.T) {
	for _, c := range []struct {
		kind, want string
	}{
		{opfs.KindNotFound, "opfs.not_found"},
		{opfs.KindNetwork, "opfs.network"},
		{opfs.KindHTTP, "opfs.http"},
		{opfs.KindFormat, KindBadFile},
	} {
		err := classifyLoad(errors.Join(errors.New("gguf: header"), &opfs.Error{Kind: c.kind, Op: "load", Offset: -1}))
		if kind(err) != c.want {
			t.Errorf("%s: %v (%s), want %s", c.kind, err, kind(err), c.want)
		}
	}
}
