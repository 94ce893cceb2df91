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
	h := enginehost.New()
	h.SetBackend("webgpu", gpu.OpenBackend)
	defer h.Unload(ctx) // frees the GPU buffers before the next load
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
