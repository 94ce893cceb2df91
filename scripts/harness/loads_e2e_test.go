package harness

import (
	"bytes"
	"context"
	"encoding/json"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/webgguf/webgguf/gguf"
)

// loadsServer serves the model files of pages/loads.js under /files/:
//
//	/files/ok/NAME        the file, with Content-Length and Range (404 if absent)
//	/files/flip/model.gguf the variant set by /__loads/serve?variant=V: good,
//	                      truncated, html (an error page with status 200),
//	                      random, unsupported (general.architecture "mamba")
//	/files/nolength/NAME  the file in flushed pieces, no Content-Length,
//	                      Range ignored
//
// It logs each request's path; GET /__loads/log returns and clears the log.
type loadsServer struct {
	dir      string
	variants map[string][]byte
	info     []byte

	mu      sync.Mutex
	variant string
	log     []string
}

func (s *loadsServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if name, ok := strings.CutPrefix(r.URL.Path, "/__loads/"); ok {
		s.control(name, w, r)
		return
	}
	s.mu.Lock()
	s.log = append(s.log, r.URL.Path)
	variant := s.variant
	s.mu.Unlock()
	mode, name, _ := strings.Cut(strings.TrimPrefix(r.URL.Path, "/files/"), "/")
	if name == "" || strings.Contains(name, "/") || strings.HasPrefix(name, ".") {
		http.NotFound(w, r)
		return
	}
	switch mode {
	case "flip":
		b := s.variants[variant]
		if variant == "html" {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
		}
		http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(b))
	case "ok", "nolength":
		b, err := os.ReadFile(filepath.Join(s.dir, name))
		if err != nil {
			http.NotFound(w, r)
			return
		}
		if mode == "ok" {
			http.ServeContent(w, r, name, time.Time{}, bytes.NewReader(b))
			return
		}
		// Flushed pieces: net/http sends them chunked, without a length.
		w.Header().Set("Content-Type", "application/octet-stream")
		fl := w.(http.Flusher)
		for len(b) > 0 {
			n := min(len(b), 64<<10)
			if _, err := w.Write(b[:n]); err != nil {
				return
			}
			fl.Flush()
			b = b[n:]
		}
	default:
		http.NotFound(w, r)
	}
}

func (s *loadsServer) control(name string, w http.ResponseWriter, r *http.Request) {
	switch name {
	case "info":
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(s.info)
	case "serve":
		v := r.URL.Query().Get("variant")
		if _, ok := s.variants[v]; !ok {
			http.Error(w, "no variant "+v, http.StatusBadRequest)
			return
		}
		s.mu.Lock()
		s.variant = v
		s.mu.Unlock()
		_, _ = w.Write([]byte("ok"))
	case "log":
		s.mu.Lock()
		b, _ := json.Marshal(append([]string{}, s.log...))
		s.log = nil
		s.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(b)
	default:
		http.NotFound(w, r)
	}
}

// splitModel splits the GGUF file data into n shards as llama-gguf-split
// does: shard 0 holds the metadata, every shard the split keys and a run of
// the tensors, in order.
func splitModel(t testing.TB, data []byte, n int) [][]byte {
	t.Helper()
	f, err := gguf.Open(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	var tensors []gguf.TensorData
	for i := range f.Tensors {
		ti := &f.Tensors[i]
		raw, err := f.ReadTensor(ti)
		if err != nil {
			t.Fatal(err)
		}
		tensors = append(tensors, gguf.TensorData{Name: ti.Name, Type: ti.Type, Ne: ti.Ne, Data: raw})
	}
	out := make([][]byte, n)
	per := (len(tensors) + n - 1) / n
	for i := range n {
		var kv []gguf.KV
		if i == 0 {
			kv = append(kv, f.KV...)
		}
		kv = append(kv, gguf.SplitKV(i, n, len(tensors))...)
		var buf bytes.Buffer
		if err := gguf.Write(&buf, kv, tensors[min(i*per, len(tensors)):min((i+1)*per, len(tensors))], 0); err != nil {
			t.Fatal(err)
		}
		out[i] = buf.Bytes()
	}
	return out
}

// withArchName returns a copy of GGUF data whose general.architecture
// "llama" is replaced by arch (5 bytes, so that nothing else moves).
func withArchName(t *testing.T, data []byte, arch string) []byte {
	t.Helper()
	key := append([]byte("general.architecture"), append([]byte{8, 0, 0, 0, 5, 0, 0, 0, 0, 0, 0, 0}, "llama"...)...)
	i := bytes.Index(data, key)
	if i < 0 || len(arch) != 5 {
		t.Fatalf("no general.architecture \"llama\" to replace with %q", arch)
	}
	out := bytes.Clone(data)
	copy(out[i+len(key)-5:], arch)
	return out
}

// TestLoadsAndCacheE2E runs pages/loads.js in headless Chromium with the
// release engine: a downloaded file that is not a usable model (truncated,
// an HTML page served with 200, random bytes, an unsupported architecture)
// fails with a typed error and is not cached, the model loaded before
// stays loaded and generates llama.cpp's greedy tokens, and the same URL
// loads once the server serves the real file; a bad entry planted in the
// cache (as older versions left them) is dropped by its failed load and
// the next load downloads the file; HTTP errors carry status
// (404); downloads without Content-Length report progress with an unknown
// total, through the worker's cache and through the page; a model on
// another origin without CORS headers fails once (one request) with a
// message that says CORS. Split GGUF: tiny-llama-q8_0 in three shards
// (splitModel) loads from its first shard's URL (one cache entry, download
// progress over all shards, models.has false for a later shard), a URL list
// without caching, its cache id, ModelCache.files and picked Files, each
// with llama.cpp's greedy ids of the unsplit file; a split with a truncated
// shard fails naming "shard 2 of 3", is not cached, and the loaded model
// stays.
func TestLoadsAndCacheE2E(t *testing.T) {
	ctx := context.Background()
	root, err := RepoRoot(".")
	if err != nil {
		t.Fatal(err)
	}
	assets, err := opfsBuild(ctx, root)
	if err != nil {
		t.Fatal(err)
	}
	good, err := os.ReadFile(filepath.Join(root, "testdata", "models", "tiny-llama-q8_0.gguf"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "tiny-llama-q8_0.gguf"), good, 0o644); err != nil {
		t.Fatal(err)
	}
	// The split model: the same file in 3 shards as llama-gguf-split
	// writes them, and a copy whose shard 2 is truncated.
	shards := splitModel(t, good, 3)
	var splitSizes []int
	for i, s := range shards {
		splitSizes = append(splitSizes, len(s))
		bad := s
		if i == 1 {
			bad = s[:len(s)*2/3]
		}
		for name, b := range map[string][]byte{gguf.SplitPath("tiny-split", i, 3): s, gguf.SplitPath("bad-split", i, 3): bad} {
			if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	random := make([]byte, 256<<10)
	rng := rand.NewChaCha8([32]byte{27})
	_, _ = rng.Read(random)
	ls := &loadsServer{dir: dir, variant: "good", variants: map[string][]byte{
		"good":        good,
		"truncated":   good[:len(good)*2/3],
		"html":        []byte("<!doctype html>\n<html><head><title>Sign in</title></head><body><h1>Please sign in to download this file</h1></body></html>\n"),
		"random":      random,
		"unsupported": withArchName(t, good, "mamba"),
	}}

	// Another origin (another port) that serves the same files without
	// CORS headers.
	other := &loadsServer{dir: dir, variants: ls.variants, variant: "good"}
	oln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	osrv := &http.Server{Handler: other}
	go func() { _ = osrv.Serve(oln) }()
	t.Cleanup(func() { _ = osrv.Close() })
	otherURL := "http://" + oln.Addr().String()

	ls.info, _ = json.Marshal(map[string]any{"size": len(good), "otherOrigin": otherURL, "splitSizes": splitSizes})
	// The strict CSP, with the other origin allowed to be fetched: what
	// stops that fetch must be CORS, not the page's own policy.
	csp := strings.Replace(CSP, "connect-src 'self'", "connect-src 'self' "+otherURL, 1)
	srv, err := ServeWith(root, map[string]string{"/build/": assets}, map[string]http.Handler{"/files/": ls, "/__loads/": ls}, csp)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Close() })
	browser, err := Launch(ctx, Options{ArtifactDir: os.Getenv("HARNESS_ARTIFACTS")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(browser.Close)

	res, err := browser.RunPage(ctx, srv.URL+"/scripts/harness/pages/loads.html", 8*time.Minute)
	if err != nil {
		t.Fatalf("%v\nconsole:\n%s\nscreenshot: %s", err, strings.Join(res.Console, "\n"), res.Screenshot)
	}
	var rep struct {
		report
		Results map[string]json.RawMessage
	}
	if err := json.Unmarshal(res.Value, &rep); err != nil {
		t.Fatalf("page result %s: %v", res.Value, err)
	}
	if len(rep.Tests) < 11 {
		t.Fatalf("page ran %d tests, want 11", len(rep.Tests))
	}
	failed := false
	for _, tc := range rep.Tests {
		if !tc.OK {
			failed = true
			t.Errorf("%s: %s", tc.Name, tc.Error)
		} else {
			t.Logf("ok %s (%.1f ms)", tc.Name, tc.MS)
		}
	}
	if failed {
		t.Logf("console:\n%s", strings.Join(res.Console, "\n"))
	}
	for k, v := range rep.Results {
		t.Logf("%s: %s", k, v)
	}
	other.mu.Lock()
	defer other.mu.Unlock()
	if n := len(other.log); n != 1 {
		t.Errorf("the other origin saw %d requests (%v), want 1: a CORS refusal is not retried", n, other.log)
	}
}
