//go:build wasip1

// Command wasi is the engine core (gguf reader, model, CPU backend) built
// as a WASI reactor (GOOS=wasip1 -buildmode=c-shared): the host calls
// _initialize, then the exported wg_* functions. It is the no-WebGPU path
// of the browser worker in a form Go tests can run under wazero, so that
// the wasm build's logits and linear memory are checked natively.
//
// The model is not copied into the module: gguf reads through the host's
// webgguf.read_at import, so weights live once, in the CPU backend.
package main

import (
	"context"
	"errors"
	"unsafe"

	"github.com/webgguf/webgguf/engine"
	"github.com/webgguf/webgguf/gguf"
)

func main() {}

// hostReadAt fills n bytes at p with the model file's bytes from off and
// returns n, or a negative value on error.
//
//go:wasmimport webgguf read_at
func hostReadAt(p unsafe.Pointer, n int32, off int64) int32

type hostFile struct{}

// ReadAt reads the model file through the host import.
func (hostFile) ReadAt(b []byte, off int64) (int, error) {
	if len(b) == 0 {
		return 0, nil
	}
	n := hostReadAt(unsafe.Pointer(&b[0]), int32(len(b)), off)
	if n < 0 {
		return 0, errors.New("host read_at failed")
	}
	if int(n) < len(b) {
		return int(n), errors.New("short read")
	}
	return int(n), nil
}

var (
	eng     *engine.Engine
	lastErr []byte
	bufs    = map[unsafe.Pointer][]byte{}
)

func fail(err error) int32 {
	lastErr = []byte(err.Error())
	return -1
}

// wgAlloc returns a buffer of n bytes kept alive until wgFree.
//
//go:wasmexport wg_alloc
func wgAlloc(n int32) unsafe.Pointer {
	if n <= 0 {
		return nil
	}
	b := make([]byte, n)
	p := unsafe.Pointer(&b[0])
	bufs[p] = b
	return p
}

// wgFree releases a buffer from wgAlloc.
//
//go:wasmexport wg_free
func wgFree(p unsafe.Pointer) { delete(bufs, p) }

// wgLoad opens the host's model file of size bytes and loads it with a
// context of nCtx positions. It returns 0, or -1 with wg_error set.
//
//go:wasmexport wg_load
func wgLoad(size int64, nCtx int32) int32 {
	f, err := gguf.Open(hostFile{}, size)
	if err != nil {
		return fail(err)
	}
	e, err := engine.Load(context.Background(), f, engine.Options{NCtx: int(nCtx)})
	if err != nil {
		return fail(err)
	}
	eng = e
	return 0
}

// wgNVocab is the loaded model's vocabulary size.
//
//go:wasmexport wg_nvocab
func wgNVocab() int32 { return int32(eng.Config().NVocab) }

// wgWeightBytes is the loaded model's weight bytes in the CPU backend.
//
//go:wasmexport wg_weight_bytes
func wgWeightBytes() int64 { return eng.Info().Plan.WeightBytes }

// wgBackendBytes is everything the CPU backend holds.
//
//go:wasmexport wg_backend_bytes
func wgBackendBytes() int64 { return eng.Info().BackendBytes }

// wgReset empties the KV cache.
//
//go:wasmexport wg_reset
func wgReset() { eng.Reset() }

// wgEval appends n token ids (int32 at ids) and writes the logits of the
// last position (all != 0: of every position) to out, n_vocab float32 per
// row. It returns the number of rows written, or -1 with wg_error set.
//
//go:wasmexport wg_eval
func wgEval(ids unsafe.Pointer, n int32, all int32, out unsafe.Pointer) int32 {
	if eng == nil {
		return fail(errors.New("no model loaded"))
	}
	if n <= 0 {
		return fail(errors.New("no tokens"))
	}
	toks := unsafe.Slice((*int32)(ids), n)
	mode := engine.LogitsLast
	if all != 0 {
		mode = engine.LogitsAll
	}
	rows, err := eng.Eval(context.Background(), append([]int32(nil), toks...), mode)
	if err != nil {
		return fail(err)
	}
	nv := eng.Config().NVocab
	dst := unsafe.Slice((*float32)(out), len(rows)*nv)
	for i, r := range rows {
		copy(dst[i*nv:], r)
	}
	return int32(len(rows))
}

// wgError returns the last error's text; wg_error_len its length.
//
//go:wasmexport wg_error
func wgError() unsafe.Pointer {
	if len(lastErr) == 0 {
		return nil
	}
	return unsafe.Pointer(&lastErr[0])
}

// wgErrorLen is the length of the last error's text.
//
//go:wasmexport wg_error_len
func wgErrorLen() int32 { return int32(len(lastErr)) }
