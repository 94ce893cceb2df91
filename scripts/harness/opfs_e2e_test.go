package harness

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/webgguf/webgguf/gen"
	"github.com/webgguf/webgguf/gguf"
)

// opfsFile is what the page learns of a served model file: its expected
// size and SHA-256, computed here from the bytes on disk.
type opfsFile struct {
	Name   string `json:"name"`
	Size   int64  `json:"size"`
	SHA256 string `json:"sha256"`
}

// opfsEnv is a browser and a server with a ModelServer for the OPFS pages.
type opfsEnv struct {
	srv     *Server
	browser *Browser
	dir     string
}

// benchPreset names a gen preset and type for BenchmarkOPFSLoad's model
// instead of the ≥ 1 GiB f16 default, e.g. BENCH_OPFS_PRESET=llama-3.2-1b:q4_0
// (a Llama-3.2-1B-shaped file with its 128k-token tokenizer, 0.77 GB).
func benchPreset() (gen.Config, bool) {
	v := os.Getenv("BENCH_OPFS_PRESET")
	name, typ, _ := strings.Cut(v, ":")
	c, ok := gen.Preset(name)
	if !ok {
		return c, false
	}
	if typ != "" {
		c.Type = typ
	}
	return c, true
}

// wasmBound is the wasm memory growth a load of the generated model may
// cause: 32 MiB, which no weight passing through Go memory would fit. A
// BENCH_OPFS_PRESET model with a 128k-150k-token vocabulary needs more for
// its tokenizer's tables alone (a Llama-3 vocabulary: 50-100 MB), so its
// bound is 160 MiB, still far below its weights.
func wasmBound() int64 {
	if _, ok := benchPreset(); ok {
		return 160 << 20
	}
	return 32 << 20
}

// genConfig is the generated model: big (≥ 1 GiB, f16 of 9 layers at
// width 2048, or BENCH_OPFS_PRESET's) for the benchmark, about 70 MB for
// the test.
func genConfig(big bool) gen.Config {
	if c, ok := benchPreset(); ok && big {
		return c
	}
	c := gen.Config{Arch: "llama", Name: "opfs-load", NEmbd: 512, NLayer: 2, NHead: 8, NHeadKV: 8, NFF: 1408, Ctx: 2048,
		RopeTheta: 10000, NormEps: 1e-5, Type: "f16", Seed: 7, Vocab: "testdata/models/vocab-llama-spm.gguf"}
	if big {
		c.NEmbd, c.NLayer, c.NHead, c.NFF = 2048, 9, 16, 5632
	}
	return c
}

func setupOPFS(t testing.TB, big bool) *opfsEnv {
	t.Helper()
	ctx := context.Background()
	root, err := RepoRoot(".")
	if err != nil {
		t.Fatal(err)
	}
	assets, err := opfsBuild(ctx, root)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	files := map[string]opfsFile{}
	for k, src := range map[string]string{"a": "gotiny-q4_k_m.gguf", "b": "tiny-llama-f16.gguf", "c": "tiny-llama-q8_0.gguf"} {
		if err := copyFile(filepath.Join(root, "testdata", "models", src), filepath.Join(dir, src)); err != nil {
			t.Fatal(err)
		}
		files[k] = describeFile(t, dir, src)
	}
	// A split model (the download check joins its shards): fixture c in
	// three shards, as llama-gguf-split writes them.
	good, err := os.ReadFile(filepath.Join(dir, files["c"].Name))
	if err != nil {
		t.Fatal(err)
	}
	for i, s := range splitModel(t, good, 3) {
		name := gguf.SplitPath("split", i, 3)
		if err := os.WriteFile(filepath.Join(dir, name), s, 0o644); err != nil {
			t.Fatal(err)
		}
		files[fmt.Sprintf("s%d", i)] = describeFile(t, dir, name)
	}
	cfg := genConfig(big)
	cfg.Vocab = filepath.Join(root, cfg.Vocab)
	t0 := time.Now()
	if err := gen.GenerateFile(filepath.Join(dir, "gen.gguf"), cfg); err != nil {
		t.Fatal(err)
	}
	files["gen"] = describeFile(t, dir, "gen.gguf")
	t.Logf("generated %d-byte model in %v", files["gen"].Size, time.Since(t0).Round(time.Millisecond))
	f, err := gguf.OpenPath(filepath.Join(dir, files["a"].Name))
	if err != nil {
		t.Fatal(err)
	}
	verify := f.Tensors[len(f.Tensors)/2].Name // a tensor from the middle of the file
	_ = f.Close()
	// llama.cpp's greedy continuation of a prompt for gotiny (the fixture a).
	var ref struct {
		Prompts []struct {
			IDs    []int32 `json:"ids"`
			Greedy []int32 `json:"greedy"`
		} `json:"prompts"`
	}
	rb, err := os.ReadFile(filepath.Join(root, "testdata", "ref", "gotiny-q4_k_m.ref.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(rb, &ref); err != nil || len(ref.Prompts) == 0 || len(ref.Prompts[0].Greedy) == 0 {
		t.Fatalf("gotiny ref: %v", err)
	}
	info, _ := json.Marshal(map[string]any{"files": files, "verify": verify, "prompt": ref.Prompts[0].IDs, "greedy": ref.Prompts[0].Greedy[0], "wasmBound": wasmBound()})

	e := &opfsEnv{dir: dir}
	ms := &ModelServer{Dir: dir}
	ms.Control = func(name string, w http.ResponseWriter, r *http.Request) {
		switch name {
		case "info":
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write(info)
		case "quota":
			n, err := strconv.ParseInt(r.URL.Query().Get("bytes"), 10, 64)
			if err == nil {
				err = e.browser.OverrideQuota(r.Context(), e.srv.URL, n)
			}
			if err != nil {
				http.Error(w, err.Error(), http.StatusInternalServerError)
				return
			}
			_, _ = io.WriteString(w, "ok")
		case "stop":
			_, _ = io.WriteString(w, "ok")
			if fl, ok := w.(http.Flusher); ok {
				fl.Flush()
			}
			go func() { time.Sleep(50 * time.Millisecond); _ = e.srv.Close() }()
		default:
			http.NotFound(w, r)
		}
	}
	// The strict CSP: the engine worker imports webgpu-runtime.js as a
	// script, so WebGPU needs no eval.
	if e.srv, err = ServeWith(root, map[string]string{"/build/": assets}, map[string]http.Handler{"/models/": ms, "/__ctl/": ms}, CSP); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = e.srv.Close() })
	if e.browser, err = Launch(ctx, Options{ArtifactDir: os.Getenv("HARNESS_ARTIFACTS")}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(e.browser.Close)
	return e
}

var (
	opfsBuildOnce sync.Once
	opfsAssets    string
	opfsBuildErr  error
)

// opfsBuild builds the release engine once for every OPFS test and
// benchmark of the process (a build takes a while on two cores).
func opfsBuild(ctx context.Context, root string) (string, error) {
	opfsBuildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "webgguf-opfs-build-")
		if err != nil {
			opfsBuildErr = err
			return
		}
		if opfsAssets, opfsBuildErr = BuildWasm(ctx, root, "./wasm", dir); opfsBuildErr == nil {
			opfsBuildErr = BuildTestWasm(ctx, root, dir) // pages/opfs.js: the loader diagnostics
		}
	})
	return opfsAssets, opfsBuildErr
}

func describeFile(t testing.TB, dir, name string) opfsFile {
	b, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		t.Fatal(err)
	}
	h := sha256.Sum256(b)
	return opfsFile{Name: name, Size: int64(len(b)), SHA256: hex.EncodeToString(h[:])}
}

type opfsReport struct {
	report
	Results map[string]json.RawMessage
}

// runOPFSPage runs page (a file in pages/, with its query) on e's server,
// sampling the engine worker's JS heap while it runs.
func runOPFSPage(t testing.TB, e *opfsEnv, page string, timeout time.Duration) (opfsReport, Heap) {
	t.Helper()
	sctx, stop := context.WithCancel(context.Background())
	type heapResult struct {
		peak Heap
		seen int
		err  error
	}
	heap := make(chan heapResult, 1)
	go func() {
		p, n, err := e.browser.SampleWorkerHeap(sctx, "webgguf-engine", 100*time.Millisecond)
		heap <- heapResult{p, n, err}
	}()
	res, err := e.browser.RunPage(context.Background(), e.srv.URL+"/scripts/harness/pages/"+page, timeout)
	stop()
	h := <-heap
	t.Logf("engine worker JS memory peaks (CDP Runtime.getHeapUsage, %d samples every 100 ms): heap %.1f MiB, ArrayBuffer backing %.1f MiB (sampling error: %v)",
		h.seen, h.peak.Used/(1<<20), h.peak.Backing/(1<<20), h.err)
	if err != nil {
		t.Fatalf("%v\nconsole:\n%s\nscreenshot: %s", err, strings.Join(res.Console, "\n"), res.Screenshot)
	}
	var rep opfsReport
	if err := json.Unmarshal(res.Value, &rep); err != nil {
		t.Fatalf("page result %s: %v", res.Value, err)
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
	return rep, h.peak
}

// TestOPFSCacheE2E runs pages/opfs.js in headless Chromium: downloads with
// progress, resume after a dropped connection, restart without Range
// support or validators, abort, integrity and quota errors (CDP quota
// override), split models, delete, loads to the GPU from the cache, a Blob
// and a URL (bytes read back from the GPU compared with the file), a
// cancelled load, wasm memory growth of a ~70 MB model load ≤ 32 MiB, and a
// cached load after the server has stopped.
func TestOPFSCacheE2E(t *testing.T) {
	e := setupOPFS(t, false)
	rep, _ := runOPFSPage(t, e, "opfs.html", 10*time.Minute)
	if len(rep.Tests) < 15 {
		t.Fatalf("page ran %d tests", len(rep.Tests))
	}
}

// BenchmarkOPFSLoad downloads a generated model of ≥ 1 GiB (or the
// BENCH_OPFS_PRESET shape, benchPreset) into OPFS and
// streams it from OPFS to the GPU (SwiftShader here), asserting wasm
// memory growth ≤ 32 MiB and reporting the OPFS → GPU rate and the peak JS
// heap. Not part of make test:
//
//	go test -run '^$' -bench OPFSLoad -benchtime 1x -timeout 30m ./scripts/harness
func BenchmarkOPFSLoad(b *testing.B) {
	e := setupOPFS(b, true)
	for range b.N {
		rep, heap := runOPFSPage(b, e, "opfs.html?bench", 20*time.Minute)
		var g struct {
			Size, Bytes, WasmGrowth, WasmBytes, JSHeapPeak, PageHeapPeak int64
			MS, GBps                                                     float64
		}
		if err := json.Unmarshal(rep.Results["gen"], &g); err != nil {
			b.Fatalf("no load result: %v", err)
		}
		if _, preset := benchPreset(); g.Size < 1<<30 && !preset {
			b.Fatalf("model of %d bytes, want ≥ 1 GiB", g.Size)
		}
		b.ReportMetric(g.GBps, "OPFS→GPU-GB/s")
		b.ReportMetric(g.MS, "load-ms")
		b.ReportMetric(float64(g.WasmGrowth)/(1<<20), "wasm-growth-MiB")
		if heap.Backing > 256<<20 {
			// JS chunks kept alive by Go's js.Value table once reached the
			// model's size here (see opfs.releaseJS).
			b.Errorf("worker ArrayBuffers peaked at %.0f MiB for a %d-byte model", heap.Backing/(1<<20), g.Size)
		}
		b.ReportMetric(heap.Used/(1<<20), "worker-js-heap-peak-MiB")
		b.ReportMetric(heap.Backing/(1<<20), "worker-arraybuffers-peak-MiB")
		b.ReportMetric(float64(g.PageHeapPeak)/(1<<20), "page-js-heap-peak-MiB")
		fmt.Fprintf(os.Stderr, "load %+v\n", g)
		benchPublicLoad(b, e)
	}
}

// benchPublicLoad loads the generated model of BenchmarkOPFSLoad from the
// cache through the public API (engine.load(id) on WebGPU, then one
// streamed completion): the OPFS → GPU rate, load() → first token, and
// the wasm memory growth, asserted ≤ 32 MiB by the page.
func benchPublicLoad(b *testing.B, e *opfsEnv) {
	rep, heap := runOPFSPage(b, e, "opfs-api.html?bench", 20*time.Minute)
	var g struct {
		Size, FileBytes, WasmGrowth, WasmBytes, PageHeapPeak int64
		LoadMs, EngineLoadMs, FirstTokenMs, GBps, UploadGBps float64
	}
	if err := json.Unmarshal(rep.Results["gen"], &g); err != nil {
		b.Fatalf("no public-API load result: %v", err)
	}
	if _, preset := benchPreset(); g.Size < 1<<30 && !preset || g.WasmGrowth > wasmBound() {
		b.Fatalf("public API: model of %d bytes (want ≥ 1 GiB), wasm growth %d B (want ≤ %d)", g.Size, g.WasmGrowth, wasmBound())
	}
	b.ReportMetric(g.GBps, "api-OPFS→GPU-GB/s")
	b.ReportMetric(g.UploadGBps, "api-weights-upload-GB/s")
	b.ReportMetric(g.LoadMs, "api-load-ms")
	b.ReportMetric(g.FirstTokenMs, "api-load-to-first-token-ms")
	var small struct{ FileBytes, LoadMs, FirstTokenMs float64 }
	if err := json.Unmarshal(rep.Results["small"], &small); err == nil {
		b.ReportMetric(small.FirstTokenMs, "api-fixture-load-to-first-token-ms")
	}
	b.ReportMetric(float64(g.WasmGrowth)/(1<<20), "api-wasm-growth-MiB")
	b.ReportMetric(heap.Used/(1<<20), "api-worker-js-heap-peak-MiB")
	b.ReportMetric(heap.Backing/(1<<20), "api-worker-arraybuffers-peak-MiB")
	b.ReportMetric(float64(g.PageHeapPeak)/(1<<20), "api-page-js-heap-peak-MiB")
	fmt.Fprintf(os.Stderr, "public-API load %+v\n", g)
}
