//go:build js

package main

import (
	"context"
	"encoding/json"
	"runtime"
	"syscall/js"

	"github.com/webgguf/webgguf/compute/gpu"
	"github.com/webgguf/webgguf/opfs"
	"github.com/webgguf/webgguf/sample"
	"github.com/webgguf/webgguf/worker"
	"github.com/webgguf/webgguf/worker/enginehost"
)

// Result is what the worker posts back (JSON).
type Result struct {
	Backend     string
	FileBytes   int64
	WasmBefore  int64 // opfs.WasmBytes after a GC, before the load
	WasmAfter   int64 // and after it
	Greedy      [][]int32
	LoadMs      float64
	Error       string
	MetadataLen int // bytes of the metadata JSON (what the model's info holds in Go)

	// The cancel check (args.cancelAt > 0): a load cancelled once cancelAt
	// weight bytes reached the GPU; GPU bytes are worker.js's accounting of
	// live buffers.
	CancelKind     string // the cancelled load's error kind
	CancelAt       int64  // weight bytes loaded when it was cancelled
	GPUBeforeLoad  int64  // live GPU bytes before it
	GPUPeakCancel  int64  // the most seen while it ran
	GPUAfterCancel int64  // after it returned
	GPUAfterUnload int64  // after the full load and generation, once unloaded
}

// gpuLive is worker.js's count of live GPU buffer bytes.
func gpuLive() int64 { return int64(js.Global().Call("gpuLiveBytes").Float()) }

// cancelLoad starts a load of src and cancels it once at bytes of weights
// have reached the GPU.
func cancelLoad(src opfs.Source, at int64, r *Result) {
	h := enginehost.New()
	h.SetBackend("webgpu", gpu.OpenBackend)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	r.GPUBeforeLoad = gpuLive()
	_, err := h.LoadSource(ctx, src, enginehost.LoadOptions{Name: "cancel", NCtx: 512, Backend: "webgpu", Progress: func(done, _ int64) {
		r.GPUPeakCancel = max(r.GPUPeakCancel, gpuLive())
		if done >= at && r.CancelAt == 0 {
			r.CancelAt = done
			cancel()
		}
	}})
	r.CancelKind = worker.KindOf(err)
	r.GPUAfterCancel = gpuLive()
}

// main reads self.gpuloadArgs = [{url, prompts: [...], lengths: [...]}, …]
// and posts one JSON []Result, each load on a fresh Host.
func main() {
	args := js.Global().Get("gpuloadArgs")
	rs := make([]Result, args.Length())
	for i := range rs {
		if err := run(args.Index(i), &rs[i]); err != nil {
			rs[i].Error = err.Error()
		}
	}
	b, _ := json.Marshal(rs)
	js.Global().Call("postMessage", string(b))
}

func run(args js.Value, r *Result) error {
	ctx := context.Background()
	runtime.GC()
	r.WasmBefore = opfs.WasmBytes()
	src, err := opfs.URLSource(ctx, []string{args.Get("url").String()})
	if err != nil {
		return err
	}
	defer src.Close()
	if at := args.Get("cancelAt"); at.Type() == js.TypeNumber && at.Int() > 0 {
		cancelLoad(src, int64(at.Int()), r)
	}
	h := enginehost.New()
	h.SetBackend("webgpu", gpu.OpenBackend)
	defer func() { // frees the GPU buffers before the next load
		_, _ = h.Unload(ctx)
		r.GPUAfterUnload = gpuLive()
	}()
	info, err := h.LoadSource(ctx, src, enginehost.LoadOptions{Name: "check", NCtx: 512, Backend: "webgpu"})
	if err != nil {
		return err
	}
	runtime.GC()
	r.WasmAfter = opfs.WasmBytes()
	r.Backend, r.FileBytes, r.LoadMs, r.MetadataLen = info.Backend, info.FileBytes, info.LoadMs, len(info.Metadata)
	prompts, lengths := args.Get("prompts"), args.Get("lengths")
	for i := range prompts.Length() {
		p := sample.Defaults()
		p.Temperature = 0
		req := enginehost.Request{Prompt: prompts.Index(i).String(), MaxTokens: lengths.Index(i).Int(), Sampling: p, IgnoreEOS: true}
		var ids []int32
		if _, err := h.Generate(ctx, req, func(id int32, _ string) error {
			if id >= 0 {
				ids = append(ids, id)
			}
			return nil
		}); err != nil {
			return err
		}
		r.Greedy = append(r.Greedy, ids)
	}
	return nil
}
