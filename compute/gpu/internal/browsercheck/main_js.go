//go:build js && wasm

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"syscall/js"
	"time"

	"github.com/webgguf/webgguf/compute/gpu"
	"github.com/webgguf/webgguf/engine"
	"github.com/webgguf/webgguf/engine/refcheck"
	"github.com/webgguf/webgguf/gguf"
)

// Result is what the worker posts for one model (JSON).
type Result struct {
	Model       string
	Adapter     string
	Tol         float64
	Positions   int
	Top1Checked int
	Top1Equal   int
	MaxDev      float64
	Failures    []string
	GreedySteps int // greedy tokens compared with llama.cpp's
	Prompts     int // prompts judged
	LoadMs      float64
	EvalMs      float64
	Split       int    // parts of token_embd.weight when split by rows (splitSuffix)
	Error       string `json:",omitempty"`
}

// main reads self.gpucheckArgs = {base, models: [...], greedy} and posts
// one JSON string with every model's Result.
func main() {
	args := js.Global().Get("gpucheckArgs")
	base := args.Get("base").String()
	greedy := 0
	if g := args.Get("greedy"); g.Type() == js.TypeNumber {
		greedy = g.Int()
	}
	var out []Result
	for i := range args.Get("models").Length() {
		name := args.Get("models").Index(i).String()
		r, err := check(context.Background(), base, name, greedy)
		if err != nil {
			r.Error = err.Error()
		}
		out = append(out, r)
	}
	b, _ := json.Marshal(out)
	js.Global().Call("postMessage", string(b))
}

// check judges one model; greedy > 0 compares only the first greedy tokens
// of llama.cpp's run (a prefix of a greedy run is a greedy run), since
// SwiftShader decodes about 2 tokens a second.
func check(ctx context.Context, base, name string, greedy int) (Result, error) {
	r := Result{Model: name}
	// ":tiled": the register-tiled prefill attention, which software
	// adapters skip by default, on SwiftShader's WebGPU.
	name, tiled := strings.CutSuffix(name, ":tiled")
	name, split := splitModel(name)
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
	r.Tol = tol.Logit
	f, err := gguf.Open(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return r, err
	}
	t0 := time.Now()
	be, err := gpu.Open(ctx)
	if err != nil {
		return r, err
	}
	r.Adapter = be.Device().Info().Adapter
	if tiled {
		a := gpu.DefaultPrefillAttention
		a.OnSoftware = true
		be.SetPrefillAttention(a)
	}
	opts := engine.Options{NCtx: 256, NUbatch: 32, Backend: be}
	if split {
		if opts.LoadWeight, err = splitLoad(be, f, data); err != nil {
			be.Close()
			return r, err
		}
	}
	e, err := engine.Load(ctx, f, opts)
	if err != nil {
		be.Close()
		return r, err
	}
	defer e.Close()
	r.Split = be.WeightPlacement().Split["token_embd.weight"]
	r.LoadMs = float64(time.Since(t0).Microseconds()) / 1000
	t0 = time.Now()
	rep := refcheck.Report{Tol: tol}
	for pi, p := range exact.Prompts {
		// Prompts over 64 tokens (multi-batch prefill) are judged natively;
		// SwiftShader is slow enough that they would dominate the run.
		if len(p.IDs) > 64 {
			continue
		}
		if split && r.Prompts >= 1 && rep.Top1Checked > 0 {
			// The split check: one prompt and its greedy run suffice, or
			// as many as it takes to check a top-1 (random-weight bitnet's
			// short first prompt has only near ties).
			break
		}
		r.Prompts++
		e.Reset()
		logits, err := e.Eval(ctx, p.IDs, engine.LogitsAll)
		if err != nil {
			return r, err
		}
		rep.Check(pi, p, logits)
		// Greedy continuation, judged against llama.cpp's with its near-tie
		// allowance (only the first prompt, to keep the run short).
		if r.Prompts > 1 {
			continue
		}
		e.Reset()
		want := llama.Prompts[pi].Greedy
		if greedy > 0 {
			want = want[:min(greedy, len(want))]
		}
		var toks []int32
		var rows [][]float32
		err = e.Generate(ctx, p.IDs, len(want), samplerFunc(func(l []float32) (int32, error) {
			rows = append(rows, append([]float32(nil), l...))
			tok := int32(engine.Argmax(l))
			toks = append(toks, tok)
			return tok, nil
		}), func(int32) bool { return true })
		if err != nil {
			return r, err
		}
		if _, err := refcheck.Greedy(toks, rows, want, tol.Logit); err != nil {
			rep.Failures = append(rep.Failures, fmt.Sprintf("prompt %d greedy: %v", pi, err))
		}
		r.GreedySteps += len(toks)
	}
	r.EvalMs = float64(time.Since(t0).Microseconds()) / 1000
	r.Positions, r.Top1Checked, r.Top1Equal, r.MaxDev, r.Failures = rep.Positions, rep.Top1Checked, rep.Top1Equal, rep.MaxDev, rep.Failures
	return r, nil
}

type samplerFunc func([]float32) (int32, error)

func (f samplerFunc) Sample(l []float32) (int32, error) { return f(l) }

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
