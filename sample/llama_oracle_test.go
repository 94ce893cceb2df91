package sample

import (
	"os"
	"path/filepath"
	"testing"
	"unsafe"

	"github.com/ebitengine/purego"
)

// llamaLibDir holds llama.cpp's libllama as shipped (prebuilt) inside
// node-llama-cpp, which scripts/oracle installs: its sampler API is the
// oracle for this package.
var llamaLibDir = filepath.Join("..", "scripts", "oracle", "node_modules", "@node-llama-cpp", "linux-x64", "bins", "linux-x64")

// llamaTokenData and llamaTokenDataArray are llama.h's llama_token_data and
// llama_token_data_array, laid out as the C compiler does on x86-64.
type llamaTokenData struct {
	ID    int32
	Logit float32
	P     float32
}

type llamaTokenDataArray struct {
	Data     *llamaTokenData
	Size     uintptr
	Selected int64
	Sorted   bool
}

type llamaLogitBias struct {
	Token int32
	Bias  float32
}

// llamaSamplers binds the llama_sampler_* functions the chain is built from.
type llamaSamplers struct {
	logitBias func(nVocab, n int32, biases *llamaLogitBias) uintptr
	// This build's llama_sampler_init_penalties takes the vocabulary size
	// first (edi = n_vocab, esi = penalty_last_n, xmm0-2 = repeat, freq,
	// present, read from its disassembly): it counts tokens in an array.
	penalties func(nVocab, lastN int32, repeat, freq, present float32) uintptr
	topK      func(k int32) uintptr
	typical   func(p float32, minKeep uintptr) uintptr
	topP      func(p float32, minKeep uintptr) uintptr
	minP      func(p float32, minKeep uintptr) uintptr
	temp      func(t float32) uintptr
	dist      func(seed uint32) uintptr
	apply     func(smpl uintptr, arr *llamaTokenDataArray)
	accept    func(smpl uintptr, tok int32)
	free      func(smpl uintptr)
}

func loadLlama(t *testing.T) *llamaSamplers {
	t.Helper()
	lib := filepath.Join(llamaLibDir, "libllama.v0.5.0.so")
	if _, err := os.Stat(lib); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("llama.cpp oracle library missing (run npm ci in scripts/oracle): %v", err)
		}
		t.Skipf("llama.cpp oracle library not installed (npm ci in scripts/oracle): %v", err)
	}
	// Load the dependencies first so that libllama's NEEDED entries resolve
	// to them by soname.
	for _, dep := range []string{"libggml-base.so", "libggml.v0.5.0.so"} {
		if _, err := purego.Dlopen(filepath.Join(llamaLibDir, dep), purego.RTLD_NOW|purego.RTLD_GLOBAL); err != nil {
			t.Fatalf("dlopen %s: %v", dep, err)
		}
	}
	h, err := purego.Dlopen(lib, purego.RTLD_NOW|purego.RTLD_GLOBAL)
	if err != nil {
		t.Fatalf("dlopen %s: %v", lib, err)
	}
	l := &llamaSamplers{}
	purego.RegisterLibFunc(&l.logitBias, h, "llama_sampler_init_logit_bias")
	purego.RegisterLibFunc(&l.penalties, h, "llama_sampler_init_penalties")
	purego.RegisterLibFunc(&l.topK, h, "llama_sampler_init_top_k")
	purego.RegisterLibFunc(&l.typical, h, "llama_sampler_init_typical")
	purego.RegisterLibFunc(&l.topP, h, "llama_sampler_init_top_p")
	purego.RegisterLibFunc(&l.minP, h, "llama_sampler_init_min_p")
	purego.RegisterLibFunc(&l.temp, h, "llama_sampler_init_temp")
	purego.RegisterLibFunc(&l.dist, h, "llama_sampler_init_dist")
	purego.RegisterLibFunc(&l.apply, h, "llama_sampler_apply")
	purego.RegisterLibFunc(&l.accept, h, "llama_sampler_accept")
	purego.RegisterLibFunc(&l.free, h, "llama_sampler_free")
	return l
}

// llamaChain is llama.cpp's default chain (common/sampling.cpp order) built
// from the oracle library for one set of Params.
type llamaChain struct {
	l        *llamaSamplers
	samplers []uintptr
	buf      []llamaTokenData
}

func (l *llamaSamplers) chain(vocab int, p Params) *llamaChain {
	c := &llamaChain{l: l, buf: make([]llamaTokenData, vocab)}
	if len(p.LogitBias) > 0 {
		biases := make([]llamaLogitBias, 0, len(p.LogitBias))
		for tok, b := range p.LogitBias {
			biases = append(biases, llamaLogitBias{Token: tok, Bias: b})
		}
		c.samplers = append(c.samplers, l.logitBias(int32(vocab), int32(len(biases)), &biases[0]))
	}
	c.samplers = append(c.samplers,
		l.penalties(int32(vocab), int32(p.PenaltyLastN), p.RepeatPenalty, p.FrequencyPenalty, p.PresencePenalty),
		l.topK(int32(p.TopK)),
		l.typical(p.TypicalP, uintptr(p.MinKeep)),
		l.topP(p.TopP, uintptr(p.MinKeep)),
		l.minP(p.MinP, uintptr(p.MinKeep)),
		l.temp(p.Temperature),
		l.dist(p.Seed),
	)
	return c
}

// sample runs the chain over logits and accepts the chosen token, as
// common_sampler_sample followed by common_sampler_accept does.
func (c *llamaChain) sample(logits []float32) int32 {
	for i, x := range logits {
		c.buf[i] = llamaTokenData{ID: int32(i), Logit: x}
	}
	arr := llamaTokenDataArray{Data: &c.buf[0], Size: uintptr(len(logits)), Selected: -1}
	for _, s := range c.samplers {
		c.l.apply(s, &arr)
	}
	data := unsafe.Slice(arr.Data, arr.Size)
	tok := data[arr.Selected].ID
	for _, s := range c.samplers {
		c.l.accept(s, tok)
	}
	return tok
}

func (c *llamaChain) free() {
	for _, s := range c.samplers {
		c.l.free(s)
	}
}
