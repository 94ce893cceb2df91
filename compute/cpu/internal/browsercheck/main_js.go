//go:build js && wasm

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"syscall/js"
	"time"

	"github.com/webgguf/webgguf/compute"
	"github.com/webgguf/webgguf/compute/gpu"
	"github.com/webgguf/webgguf/engine"
	"github.com/webgguf/webgguf/engine/refcheck"
	"github.com/webgguf/webgguf/gguf"
	"github.com/webgguf/webgguf/worker"
	"github.com/webgguf/webgguf/worker/enginehost"
)

// greedyPrompts is how many prompts get a greedy continuation checked
// (decode is the slow part under wasm; teacher forcing covers the rest).
const greedyPrompts = 2

// main reads self.cpucheckArgs = {base, models: [...], probeOnly} and posts
// one JSON string: the Report (only the probe when probeOnly).
func main() {
	args := js.Global().Get("cpucheckArgs")
	base := args.Get("base").String()
	ctx := context.Background()
	var rep Report
	names := args.Get("models")
	if names.Length() == 0 {
		rep.Error = "no models"
	}
	for i := range names.Length() {
		name := names.Index(i).String()
		if i == 0 {
			p, err := probe(ctx, base, name)
			if err != nil {
				rep.Error = "probe: " + err.Error()
			}
			rep.Probe = p
			if args.Get("probeOnly").Truthy() {
				break
			}
		}
		r, err := check(ctx, base, name)
		if err != nil {
			r.Error = err.Error()
		}
		rep.Results = append(rep.Results, r)
	}
	b, err := json.Marshal(rep)
	if err != nil {
		b = []byte(`{"Error":"marshal"}`)
	}
	js.Global().Call("postMessage", string(b))
}

// probe looks at WebGPU in this worker and loads the model through the
// engine host with "auto" (the worker's default) and with "webgpu", the
// WebGPU backend registered as the real engine registers it.
func probe(ctx context.Context, base, name string) (Probe, error) {
	var p Probe
	gpuObj := js.Global().Get("navigator").Get("gpu")
	p.NavigatorGPU = gpuObj.Truthy()
	if p.NavigatorGPU {
		a, err := await(gpuObj.Call("requestAdapter"))
		if err == nil && a.Truthy() {
			p.Adapter = true
		}
	}
	data, err := fetch(base + "/testdata/models/" + name + ".gguf")
	if err != nil {
		return p, err
	}
	h := enginehost.New()
	h.SetBackend("webgpu", func(ctx context.Context) (compute.Backend, error) {
		be, err := gpu.Open(ctx)
		if err != nil {
			return nil, err
		}
		return be, nil
	})
	info, err := h.Load(ctx, data, enginehost.LoadOptions{Name: name, NCtx: 256, Backend: "auto"})
	if err != nil {
		return p, fmt.Errorf("auto load: %w", err)
	}
	p.AutoBackend, p.AutoBytes = info.Backend, info.BackendBytes
	if _, err := h.Load(ctx, data, enginehost.LoadOptions{Name: name, NCtx: 256, Backend: "webgpu"}); err != nil {
		p.WebGPUError = err.Error()
		var we *worker.Error
		if errors.As(err, &we) {
			p.WebGPUKind = we.Kind
		}
	}
	_, _ = h.Unload(ctx)
	return p, nil
}

// check evaluates every prompt of the model's float64 reference
// teacher-forced on the CPU backend, summarizes each position as the
// fixtures do, and checks the first prompts' greedy continuations against
// llama.cpp's.
func check(ctx context.Context, base, name string) (Result, error) {
	r := Result{Model: name}
	data, err := fetch(base + "/testdata/models/" + name + ".gguf")
	if err != nil {
		return r, err
	}
	var llama, exact refcheck.File
	for path, f := range map[string]*refcheck.File{".ref.json": &llama, ".exact.json": &exact} {
		b, err := fetch(base + "/testdata/ref/" + name + path)
		if err != nil {
			return r, err
		}
		if err := json.Unmarshal(b, f); err != nil {
			return r, fmt.Errorf("%s%s: %w", name, path, err)
		}
	}
	tol, err := refcheck.ComputeTolerance(&llama, &exact)
	if err != nil {
		return r, err
	}
	f, err := gguf.Open(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return r, err
	}
	for _, t := range f.Tensors {
		r.WeightBytes += t.Size
	}
	t0 := time.Now()
	// Backend nil: the engine's CPU backend (one thread: Go's js/wasm
	// runtime has one). Micro-batches of 3 tokens send every teacher-forced
	// position through the fused decode kernels, the ones the wasm build
	// swaps for its own (wide and quantized-activation kernels).
	e, err := engine.Load(ctx, f, engine.Options{NCtx: 512, NUbatch: 3, Threads: 1})
	if err != nil {
		return r, err
	}
	defer e.Close()
	r.BackendBytes = e.Info().BackendBytes
	r.LoadMs = ms(time.Since(t0))
	t0 = time.Now()
	r.Eval = refcheck.File{Model: name, TopK: 20, Source: "webgguf cpu backend, js/wasm in Chromium"}
	for pi, p := range exact.Prompts {
		e.Reset()
		logits, err := e.Eval(ctx, p.IDs, engine.LogitsAll)
		if err != nil {
			return r, err
		}
		out := refcheck.Prompt{Prompt: p.Prompt, IDs: p.IDs}
		for _, row := range logits {
			out.Positions = append(out.Positions, refcheck.Summarize(row, 20))
		}
		if pi < greedyPrompts && pi < len(llama.Prompts) {
			toks, fail, err := greedy(ctx, e, p.IDs, llama.Prompts[pi].Greedy, tol.Logit)
			if err != nil {
				return r, err
			}
			if fail != "" {
				r.GreedyFailures = append(r.GreedyFailures, fmt.Sprintf("prompt %d: %s", pi, fail))
			}
			out.Greedy = toks
			r.GreedySteps += len(toks)
		}
		r.Eval.Prompts = append(r.Eval.Prompts, out)
	}
	r.EvalMs = ms(time.Since(t0))
	return r, nil
}

// greedy continues prompt greedily for len(want) tokens and judges the
// continuation against want with refcheck.Greedy's near-tie allowance.
func greedy(ctx context.Context, e *engine.Engine, prompt, want []int32, tol float64) ([]int32, string, error) {
	e.Reset()
	var toks []int32
	var rows [][]float32
	err := e.Generate(ctx, prompt, len(want), samplerFunc(func(l []float32) (int32, error) {
		rows = append(rows, append([]float32(nil), l...))
		tok := int32(engine.Argmax(l))
		toks = append(toks, tok)
		return tok, nil
	}), func(int32) bool { return true })
	if err != nil {
		return nil, "", err
	}
	if _, err := refcheck.Greedy(toks, rows, want, tol); err != nil {
		return toks, err.Error(), nil
	}
	return toks, "", nil
}

type samplerFunc func([]float32) (int32, error)

func (f samplerFunc) Sample(l []float32) (int32, error) { return f(l) }

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// fetch GETs url and returns the body (run off any JS callback goroutine).
func fetch(url string) ([]byte, error) {
	resp, err := await(js.Global().Call("fetch", url))
	if err != nil {
		return nil, err
	}
	if !resp.Get("ok").Bool() {
		return nil, fmt.Errorf("GET %s: status %d", url, resp.Get("status").Int())
	}
	ab, err := await(resp.Call("arrayBuffer"))
	if err != nil {
		return nil, err
	}
	u8 := js.Global().Get("Uint8Array").New(ab)
	out := make([]byte, u8.Length())
	js.CopyBytesToGo(out, u8)
	return out, nil
}

// await waits for a JS promise.
func await(p js.Value) (js.Value, error) {
	ch := make(chan js.Value, 1)
	errc := make(chan error, 1)
	then := js.FuncOf(func(_ js.Value, a []js.Value) any { ch <- a[0]; return nil })
	catch := js.FuncOf(func(_ js.Value, a []js.Value) any {
		errc <- errors.New(js.Global().Get("String").Invoke(a[0]).String())
		return nil
	})
	defer then.Release()
	defer catch.Release()
	p.Call("then", then).Call("catch", catch)
	select {
	case v := <-ch:
		return v, nil
	case err := <-errc:
		return js.Value{}, err
	}
}
