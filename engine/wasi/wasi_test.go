//go:build linux

package wasi_test

import (
	"context"
	"encoding/binary"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/imports/wasi_snapshot_preview1"

	"github.com/webgguf/webgguf/engine"
	"github.com/webgguf/webgguf/engine/enginetest"
	"github.com/webgguf/webgguf/engine/refcheck"
)

// buildReactor compiles this package for GOOS=wasip1 as a reactor.
func buildReactor(t *testing.T) []byte {
	t.Helper()
	// The go command running this test is on PATH (go test puts its
	// GOROOT/bin first).
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("no go command to build the wasip1 reactor: %v", err)
	}
	out := filepath.Join(t.TempDir(), "engine.wasm")
	cmd := exec.Command(goBin, "build", "-buildmode=c-shared", "-o", out, ".")
	cmd.Env = append(os.Environ(), "GOOS=wasip1", "GOARCH=wasm", "CGO_ENABLED=0")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("building the wasip1 reactor: %v\n%s", err, b)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// reactor is an instantiated engine module with its model file.
type reactor struct {
	t   *testing.T
	ctx context.Context
	mod api.Module
}

func (r *reactor) call(name string, args ...uint64) uint64 {
	r.t.Helper()
	res, err := r.mod.ExportedFunction(name).Call(r.ctx, args...)
	if err != nil {
		r.t.Fatalf("%s: %v", name, err)
	}
	if len(res) == 0 {
		return 0
	}
	return res[0]
}

func (r *reactor) check(rc uint64) {
	r.t.Helper()
	if int32(rc) < 0 {
		p, n := r.call("wg_error"), r.call("wg_error_len")
		msg, _ := r.mod.Memory().Read(uint32(p), uint32(n))
		r.t.Fatalf("engine error: %s", msg)
	}
}

func newReactor(t *testing.T, wasm []byte, model string) *reactor {
	ctx := context.Background()
	rt := wazero.NewRuntime(ctx)
	t.Cleanup(func() { rt.Close(ctx) })
	wasi_snapshot_preview1.MustInstantiate(ctx, rt)
	f, err := os.Open(model)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	_, err = rt.NewHostModuleBuilder("webgguf").NewFunctionBuilder().
		WithFunc(func(ctx context.Context, m api.Module, p, n uint32, off int64) int32 {
			buf, ok := m.Memory().Read(p, n)
			if !ok {
				return -1
			}
			got, err := f.ReadAt(buf, off) // buf aliases the module's memory
			if err != nil && got < int(n) {
				return -1
			}
			return int32(got)
		}).Export("read_at").Instantiate(ctx)
	if err != nil {
		t.Fatal(err)
	}
	mod, err := rt.InstantiateWithConfig(ctx, wasm, wazero.NewModuleConfig().WithStartFunctions("_initialize").WithStderr(os.Stderr))
	if err != nil {
		t.Fatal(err)
	}
	return &reactor{t: t, ctx: ctx, mod: mod}
}

// eval runs ids through the module and returns its logits rows.
func (r *reactor) eval(ids []int32, all bool, nVocab int) [][]float32 {
	r.t.Helper()
	idp := r.call("wg_alloc", uint64(4*len(ids)))
	rows := 1
	if all {
		rows = len(ids)
	}
	outp := r.call("wg_alloc", uint64(4*rows*nVocab))
	b := make([]byte, 4*len(ids))
	for i, id := range ids {
		binary.LittleEndian.PutUint32(b[4*i:], uint32(id))
	}
	r.mod.Memory().Write(uint32(idp), b)
	flag := uint64(0)
	if all {
		flag = 1
	}
	n := r.call("wg_eval", idp, uint64(len(ids)), flag, outp)
	r.check(n)
	raw, _ := r.mod.Memory().Read(uint32(outp), uint32(4*int(n)*nVocab))
	out := make([][]float32, n)
	for i := range out {
		out[i] = make([]float32, nVocab)
		for j := range out[i] {
			out[i][j] = math.Float32frombits(binary.LittleEndian.Uint32(raw[4*(i*nVocab+j):]))
		}
	}
	r.call("wg_free", idp)
	r.call("wg_free", outp)
	return out
}

// TestWasmReactorMatchesNative loads gotiny into the wasip1 build under
// wazero, reading the file through the host import (no copy of the file in
// the module), and checks: teacher-forced logits equal the native engine's
// (same Go code; only math.Exp/Sincos may differ in the last ulp), pass
// refcheck's rule against the float64 reference, and the module's linear
// memory stays within the backend's holdings plus a bounded overhead.
func TestWasmReactorMatchesNative(t *testing.T) {
	const name = "gotiny-q4_k_m"
	model := filepath.Join(enginetest.Testdata(), "models", name+".gguf")
	st, err := os.Stat(model)
	if err != nil {
		t.Fatal(err)
	}
	r := newReactor(t, buildReactor(t), model)
	memBefore := r.mod.Memory().Size()
	r.check(r.call("wg_load", uint64(st.Size()), 256))
	memAfter := r.mod.Memory().Size()
	nVocab := int(r.call("wg_nvocab"))
	weights, held := int64(r.call("wg_weight_bytes")), int64(r.call("wg_backend_bytes"))

	llama, exact := enginetest.Refs(t, name)
	p := exact.Prompts[1]
	pre0 := processCPU()
	got := r.eval(p.IDs, true, nVocab)
	preCPU := processCPU() - pre0

	native, _ := enginetest.Load(t, name, nil, engine.Options{NCtx: 256})
	want, err := native.Eval(context.Background(), p.IDs, engine.LogitsAll)
	if err != nil {
		t.Fatal(err)
	}
	var maxd float64
	for i := range want {
		for j := range want[i] {
			maxd = math.Max(maxd, math.Abs(float64(got[i][j]-want[i][j])))
		}
	}
	if maxd > 1e-4 {
		t.Errorf("wasm logits differ from native by up to %g", maxd)
	}
	tol, err := refcheck.ComputeTolerance(llama, exact)
	if err != nil {
		t.Fatal(err)
	}
	rep := refcheck.Report{Tol: tol}
	rep.Check(1, p, got)
	for _, f := range rep.Failures {
		t.Error(f)
	}

	// Decode speed of the wasm build (wazero's compiler; no SIMD, like
	// Go's js/wasm in a browser), single thread.
	start, cpu0 := time.Now(), processCPU()
	const n = 32
	for i := range n {
		r.eval([]int32{int32(100 + i)}, false, nVocab)
	}
	el, cpu := time.Since(start), processCPU()-cpu0

	overhead := int64(memAfter) - held
	t.Logf("linear memory %.1f MiB before load, %.1f MiB after (weights %.1f MiB, backend holds %.1f MiB, overhead %.1f MiB); wasm vs native max |Δ| %.2g; wasm prefill %.1f and decode %.1f tok per CPU-second (decode %.1f tok/s wall)",
		mib(int64(memBefore)), mib(int64(memAfter)), mib(weights), mib(held), mib(overhead), maxd, float64(len(p.IDs))/preCPU.Seconds(), n/cpu.Seconds(), n/el.Seconds())
	// Go's heap and runtime add a bounded amount; a second copy of the
	// weights (file read into memory) would exceed it.
	if overhead > weights/2+32<<20 {
		t.Errorf("linear memory %d bytes exceeds backend holdings %d by %d", memAfter, held, overhead)
	}
}

// processCPU is this process's CPU time (the module runs single-threaded,
// so tokens per CPU-second is its single-core speed on a shared machine).
func processCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return time.Nanosecond
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func mib(b int64) float64 { return float64(b) / (1 << 20) }
