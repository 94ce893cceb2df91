package enginehost

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"time"

	"github.com/webgguf/webgguf/chat"
	"github.com/webgguf/webgguf/compute"
	"github.com/webgguf/webgguf/engine"
	"github.com/webgguf/webgguf/gguf"
	"github.com/webgguf/webgguf/glue"
	"github.com/webgguf/webgguf/tokenizer"
	"github.com/webgguf/webgguf/webgpu"
	"github.com/webgguf/webgguf/worker"
)

// loaded is a model ready to serve, with what generation reuses.
type loaded struct {
	info     glue.ModelInfo
	eng      *engine.Engine
	tok      *tokenizer.Tokenizer
	format   *engine.ChatFormat // the chat template (ChatML where the model's is missing or broken)
	sess     *engine.Session    // the conversation the KV cache holds
	prof     stepProfiler       // set when the page asked for profiles (profile.go)
	be       compute.Backend    // nil: the CPU; a GPU backend's device may be lost
	grammars grammarCache       // compiled grammars and schemas (grammar.go)
}

// LoadOptions configure Host.Load.
type LoadOptions struct {
	Name     string
	NCtx     int
	Backend  string                  // "cpu", "webgpu", "auto" or "" (auto)
	Progress func(done, total int64) // weights moved into the backend
	Warn     func(msg string)        // why a backend was passed over, if one was
	Debug    func(msg string)        // where the load's time went (loadPhases)

	source string // ModelInfo.Source: "cache", "url", "blob" or "bytes"
}

func (o LoadOptions) warn(msg string) {
	if o.Warn != nil {
		o.Warn(msg)
	}
}

// Load parses data as a GGUF model and loads it, replacing the loaded model.
// A file this engine cannot run (not GGUF, truncated, an unsupported
// architecture, a broken tokenizer) fails before the loaded model is freed,
// which stays loaded and usable; after those checks the loaded model is
// freed first, so two models' weights never sit in memory together, and a
// failure from there on (out of memory, GPU, canceled) leaves no model.
// data is only read during Load.
func (h *Host) Load(ctx context.Context, data []byte, o LoadOptions) (*glue.ModelInfo, error) {
	if o.source == "" {
		o.source = "bytes"
	}
	return h.LoadFile(ctx, func() (*gguf.File, error) {
		return gguf.Open(bytes.NewReader(data), int64(len(data)))
	}, int64(len(data)), nil, o)
}

// WeightsFor returns, for the backend a load picked (nil: the CPU), the
// engine.WeightLoader that moves the weights into it, or nil for the
// engine's own stream of the file through Go memory.
type WeightsFor func(be compute.Backend) engine.WeightLoader

// LoadFile is Load of the model open opens (called once the previous model
// is freed; the file is closed when LoadFile returns), of size bytes. weights,
// if not nil, chooses the weight source per backend: the browser's GPU path
// streams JS-side chunks straight into GPU buffers (see LoadSource).
func (h *Host) LoadFile(ctx context.Context, open func() (*gguf.File, error), size int64, weights WeightsFor, o LoadOptions) (*glue.ModelInfo, error) {
	release, err := h.acquire(ctx)
	if err != nil {
		return nil, err
	}
	defer release()
	if o.NCtx < 0 {
		return nil, invalid("contextSize must not be negative")
	}
	start := time.Now()
	lap := lapTimer(start)
	f, err := open()
	if err != nil {
		return nil, classifyLoad(err)
	}
	defer f.Close()
	tOpen := lap()
	if err := checkModel(f); err != nil {
		return nil, err
	}
	tok, err := tokenizer.FromGGUF(f)
	if err != nil {
		return nil, classifyLoad(err)
	}
	for _, w := range tok.Warnings() {
		o.warn("the model's tokenizer metadata is odd but usable: " + w)
	}
	// A template this engine cannot parse must not make the model
	// unusable for plain completions: ChatML stands in, with a warning.
	format, warning, err := engine.NewChatFormat(f, tok)
	if err != nil {
		return nil, err
	}
	tTok := lap()
	// Everything above only read the file: the loaded model is still
	// there for a failed load to leave in place. Its memory is needed now.
	h.unloadLocked()
	memBefore := wasmBytes()
	be, name, err := h.pickBackend(ctx, o.Backend, o.warn)
	if err != nil {
		return nil, err
	}
	tBackend := lap()
	loader := func(be compute.Backend) engine.WeightLoader {
		if weights == nil {
			return nil
		}
		return weights(be)
	}
	// The engine plans against what the backend can hold: on the CPU all
	// of the model sits in wasm memory (4 GiB less what is in use), on
	// WebGPU the weights, caches and arenas sit on the device, each cache
	// within the adapter's maxBufferSize. Too big a plan is an
	// out-of-memory error before anything is allocated, or a default
	// context halved until it fits (warned below).
	eng, err := engine.Load(ctx, f, engine.Options{NCtx: o.NCtx, Backend: be, Progress: o.Progress, LoadWeight: loader(be), Tokenizer: tok,
		MaxBufferBytes: maxBuffer(be), HostMemoryLimit: hostMemoryLimit})
	if err != nil && be != nil && (o.Backend == "" || o.Backend == "auto") && ctx.Err() == nil {
		// "auto" means the best backend that works: a model the GPU
		// backend cannot take still runs on the CPU.
		_ = be.Close()
		o.warn("the WebGPU backend could not load the model (" + err.Error() + "); using the CPU")
		be, name = nil, "cpu"
		eng, err = engine.Load(ctx, f, engine.Options{NCtx: o.NCtx, Progress: o.Progress, LoadWeight: loader(nil), Tokenizer: tok, HostMemoryLimit: hostMemoryLimit})
	}
	if err == nil {
		// A device lost late in the load (its lost promise settles
		// between two awaits) leaves an engine whose every call fails.
		if l := lostDevice(be); l != nil {
			_ = eng.Close()
			eng, err = nil, l
		}
	}
	if err != nil {
		lost := classifyDeviceLost(err, be)
		if be != nil {
			_ = be.Close()
		}
		if lost != nil {
			return nil, lost
		}
		return nil, classifyLoad(err)
	}
	if from := eng.Info().ShrunkFrom; from > 0 {
		o.warn(fmt.Sprintf("the model's %d-position context does not fit in memory; using %d positions (pass a smaller contextSize to choose)", from, eng.NCtx()))
	}
	cfg := eng.Config()
	sess, err := engine.NewSession(eng, engine.SessionOptions{})
	if err != nil {
		_ = eng.Close()
		return nil, classifyLoad(err)
	}
	m := &loaded{eng: eng, tok: tok, format: format, sess: sess, be: be}
	if be != nil {
		m.prof = applyPageKnobs(be)
	}
	m.info = glue.ModelInfo{
		Loaded: true, Name: o.Name, Arch: cfg.Arch, Backend: name,
		NCtx: uint32(eng.NCtx()), NCtxTrain: uint32(cfg.NCtxTrain), NVocab: uint32(cfg.NVocab),
		NLayer: uint32(cfg.NLayer), NEmbd: uint32(cfg.NEmbd), FileBytes: size,
		BackendBytes: eng.Info().BackendBytes, TemplateWarning: warning, Metadata: metadataJSON(f),
		LoadMs: float64(time.Since(start).Microseconds()) / 1000, BOS: cfg.BOS, EOS: cfg.EOS,
		Source: o.source, WasmBytes: wasmBytes(),
	}
	m.info.WasmGrowth = m.info.WasmBytes - memBefore
	if warning == "" {
		m.info.ChatTemplate, _ = chat.TemplateFor(f)
	}
	if o.Debug != nil {
		line := loadPhases(m.info.LoadMs, tOpen, tTok, tBackend, eng.Info().LoadPhases)
		if d, ok := be.(interface{ Device() *webgpu.Device }); ok {
			line += deviceCounts(d.Device().Stats())
		}
		o.Debug(line)
	}
	h.m = m
	info := m.info
	return &info, nil
}

// hostMemoryLimit is engine.Options.HostMemoryLimit for every load: 0, the
// engine's rule (wasm32: the address space left). Tests set wasm32's bound
// natively.
var hostMemoryLimit int64

// maxBuffer is the largest buffer be's device can create (0: be is not a
// GPU backend), so that engine.Load refuses a KV cache tensor above it
// before streaming the weights rather than after.
func maxBuffer(be compute.Backend) int64 {
	if d, ok := be.(interface{ Device() *webgpu.Device }); ok {
		return int64(min(d.Device().Limits().MaxBufferSize, math.MaxInt64))
	}
	return 0
}

// softwareAdapter is a GPU backend that can tell whether its device is a
// software renderer (gpu.Backend): "auto" passes those over for the CPU.
type softwareAdapter interface {
	SoftwareAdapter() (soft bool, name string)
}

// pickBackend returns the backend for a load (nil: the engine's CPU
// default) and its name.
func (h *Host) pickBackend(ctx context.Context, want string, warn func(string)) (compute.Backend, string, error) {
	switch want {
	case "cpu":
		return nil, "cpu", nil
	case "", "auto":
		if f, ok := h.backend("webgpu"); ok {
			be, err := f(ctx)
			if err != nil {
				warn("WebGPU is not available (" + err.Error() + "); using the CPU")
				return nil, "cpu", nil
			}
			if sw, ok := be.(softwareAdapter); ok {
				if soft, name := sw.SoftwareAdapter(); soft {
					_ = be.Close()
					warn("the WebGPU adapter is a software renderer (" + name + "), far slower than the CPU backend; using the CPU (backend 'webgpu' uses it anyway)")
					return nil, "cpu", nil
				}
			}
			return be, "webgpu", nil
		}
		return nil, "cpu", nil
	case "webgpu":
		f, ok := h.backend("webgpu")
		if !ok {
			return nil, "", worker.NewError(KindGPUUnavailable, "this engine build has no WebGPU backend yet; use backend 'cpu' or 'auto'", nil)
		}
		be, err := f(ctx)
		if err != nil {
			return nil, "", worker.NewError(KindGPUUnavailable, "WebGPU is not available", err)
		}
		return be, "webgpu", nil
	}
	return nil, "", invalid("backend must be 'auto', 'webgpu' or 'cpu', not " + want)
}

// Unload frees the loaded model; it reports whether there was one.
func (h *Host) Unload(ctx context.Context) (bool, error) {
	release, err := h.acquire(ctx)
	if err != nil {
		return false, err
	}
	defer release()
	return h.unloadLocked(), nil
}

func (h *Host) unloadLocked() bool {
	if h.m == nil {
		return false
	}
	_ = h.m.eng.Close()
	h.m = nil
	return true
}

// Info describes the loaded model (Loaded false when there is none).
func (h *Host) Info(ctx context.Context) (*glue.ModelInfo, error) {
	release, err := h.acquire(ctx)
	if err != nil {
		return nil, err
	}
	defer release()
	if h.m == nil {
		return &glue.ModelInfo{BOS: -1, EOS: -1}, nil
	}
	info := h.m.info
	return &info, nil
}

// metadataJSON renders the file's scalar metadata (arrays such as the
// vocabulary are left out: they are large and the page has no use for them).
func metadataJSON(f *gguf.File) string {
	md := map[string]any{}
	for _, kv := range f.KV {
		if kv.Value.Type == gguf.ValueArray {
			md[kv.Key] = map[string]any{"array": kv.Value.Len()}
			continue
		}
		md[kv.Key] = kv.Value.V
	}
	b, err := json.Marshal(md)
	if err != nil {
		return "{}"
	}
	return string(b)
}
