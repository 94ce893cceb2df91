package gen

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"math"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/webgguf/webgguf/gguf"
)

const testVocab = "../testdata/models/tiny-llama-q8_0.gguf" // 4096 Llama-2 tokens

func smallConfig(arch, typ string) Config {
	c := Config{Arch: arch, NEmbd: 256, NLayer: 2, NHead: 4, NHeadKV: 2, NFF: 512, Ctx: 512, RopeTheta: 10000,
		NormEps: 1e-5, Tied: true, Type: typ, Seed: 7, Vocab: testVocab}
	switch arch {
	case "qwen3":
		c.HeadDim = 128
	case "gemma3":
		// key_length 128 ≠ n_embd/n_head; layers 0-4 with a window of 3,
		// layer 5 global (RoPE base 10 000 on the first, 1e6 on the last).
		c.NLayer, c.NHeadKV, c.HeadDim, c.Window, c.RopeTheta, c.NormEps = 6, 1, 128, 3, 1e6, 1e-6
	case "gemma2":
		// key_length 128; window 3 on layers 0 and 2; soft-caps small
		// enough to bite on random weights (scores of about one, logits
		// of std 2): against llama.cpp, dropping the attention cap moves
		// the f32 logits by 0.24, the final cap by 13, the window by 0.18.
		c.NLayer, c.HeadDim, c.Window, c.NormEps, c.AttnSoftcap, c.FinalSoftcap = 4, 128, 3, 1e-6, 1, 8
	case "smollm3":
		// Layer 3 has no RoPE (roping it moves llama.cpp's f32 logits
		// by 0.26 from ours).
		c.NLayer = 4
	}
	return c
}

func generateBytes(t *testing.T, c Config) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := Generate(&buf, c); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestGenerateDeterministic: the bytes depend on the seed only, not on the
// number of workers.
func TestGenerateDeterministic(t *testing.T) {
	c := smallConfig("llama", "q4_k_m")
	a := sha256.Sum256(generateBytes(t, c))
	prev := runtime.GOMAXPROCS(1)
	b := sha256.Sum256(generateBytes(t, c))
	runtime.GOMAXPROCS(prev)
	if a != b {
		t.Error("output differs between GOMAXPROCS 1 and", prev)
	}
	c.Seed++
	if sha256.Sum256(generateBytes(t, c)) == a {
		t.Error("a different seed gave the same model")
	}
}

// TestGenerateReadBack reads every generated file back with the gguf reader
// and checks the weights' statistics (in float64) against the plan's
// scales: matrices std 1/sqrt(fan_in), norms mean 1.
func TestGenerateReadBack(t *testing.T) {
	for _, arch := range []string{"llama", "qwen2", "qwen3", "gemma3", "gemma2", "smollm3"} {
		c := smallConfig(arch, "q8_0")
		c.Tied = arch != "qwen2"
		raw := generateBytes(t, c)
		f, err := gguf.Open(bytes.NewReader(raw), int64(len(raw)))
		if err != nil {
			t.Fatalf("%s: %v", arch, err)
		}
		if got, _ := f.Uint("{arch}.block_count"); got != uint64(c.NLayer) || f.Arch() != arch {
			t.Errorf("%s: arch %q block_count %d", arch, f.Arch(), got)
		}
		for _, ti := range f.Tensors {
			data, err := f.ReadTensor(&ti)
			if err != nil {
				t.Fatalf("%s: %v", ti.Name, err)
			}
			n := 1
			for _, d := range ti.Ne {
				n *= int(d)
			}
			x, err := gguf.Dequantize(ti.Type, data, n)
			if err != nil {
				t.Fatalf("%s: %v", ti.Name, err)
			}
			var s, ss float64
			for _, v := range x {
				s += float64(v)
				ss += float64(v) * float64(v)
			}
			mean := s / float64(n)
			std := math.Sqrt(ss/float64(n) - mean*mean)
			var wantMean, wantStd float64
			switch {
			case filepath.Ext(ti.Name) == ".bias":
				wantStd = 0.05
			case len(ti.Ne) == 1:
				wantMean, wantStd = 1, 0.1
			case ti.Name == "token_embd.weight":
				wantStd = 2 / math.Sqrt(float64(ti.Ne[0]))
			default:
				wantStd = 1 / math.Sqrt(float64(ti.Ne[0]))
			}
			// Sampling error of n draws plus q8_0's ≤1% quantization noise.
			tol := 4/math.Sqrt(float64(n)) + 0.02
			if math.Abs(mean-wantMean) > tol*math.Max(wantStd, 0.05)*4 || math.Abs(std/wantStd-1) > tol*2 {
				t.Errorf("%s %s: mean %.4f std %.4f, want %.4f and %.4f", arch, ti.Name, mean, std, wantMean, wantStd)
			}
		}
	}
}

func TestVocabPadding(t *testing.T) {
	c := smallConfig("qwen2", "f16")
	c.NVocab = 4100
	raw := generateBytes(t, c)
	f, err := gguf.Open(bytes.NewReader(raw), int64(len(raw)))
	if err != nil {
		t.Fatal(err)
	}
	toks, _ := f.Strings("tokenizer.ggml.tokens")
	types, _ := f.Ints("tokenizer.ggml.token_type")
	scores, _ := f.Floats("tokenizer.ggml.scores")
	if len(toks) != 4100 || len(types) != 4100 || len(scores) != 4100 {
		t.Fatalf("padded vocab: %d tokens, %d types, %d scores", len(toks), len(types), len(scores))
	}
	if toks[4099] != "[PAD4099]" || types[4099] != tokenTypeUnused || toks[4095] == "[PAD4095]" {
		t.Errorf("padding tokens: %q (type %d), last real %q", toks[4099], types[4099], toks[4095])
	}
	if ti, _ := f.Tensor("token_embd.weight"); ti.Ne[1] != 4100 {
		t.Errorf("token_embd rows %d", ti.Ne[1])
	}
}

func TestConfigErrors(t *testing.T) {
	var ce *ConfigError
	bad := []func(*Config){
		func(c *Config) { c.Arch = "gpt2" },
		func(c *Config) { c.NEmbd = 0 },
		func(c *Config) { c.NHead = 3 },                   // does not divide 256
		func(c *Config) { c.NHeadKV = 3 },                 // does not divide 4
		func(c *Config) { c.NLayer = 1 << 20 },            // absurd
		func(c *Config) { c.HeadDim = 96 },                // llama: head dim fixed
		func(c *Config) { c.Type = "q9_9" },               // unknown type
		func(c *Config) { c.NVocab = 100 },                // smaller than the vocab file
		func(c *Config) { c.NHeadKV = 0 },                 // no KV heads
		func(c *Config) { c.Type, c.NEmbd = "q4_0", 200 }, // not whole q4_0 blocks
		func(c *Config) { c.Vocab = "" },                  // no vocab
		func(c *Config) { c.RopeTheta = math.NaN() },      // nonsense
		func(c *Config) { c.NEmbd, c.NFF = 1<<20, 1<<20 }, // more parameters than allowed
		func(c *Config) { c.Window = 512 },                // a window on llama
		func(c *Config) { c.Arch, c.Window = "gemma3", -1 },
		func(c *Config) { c.Arch, c.Window = "smollm3", 64 }, // no window on smollm3
		func(c *Config) { c.AttnSoftcap = 50 },               // a soft-cap on llama
		func(c *Config) { c.Arch, c.FinalSoftcap = "gemma2", -1 },
	}
	for i, mut := range bad {
		c := smallConfig("llama", "q8_0")
		mut(&c)
		err := Generate(&bytes.Buffer{}, c)
		if !errors.As(err, &ce) {
			t.Errorf("case %d: got %v, want a *ConfigError", i, err)
		}
	}
}

// TestPresetShapes: the presets describe the published model shapes.
func TestPresetShapes(t *testing.T) {
	for _, name := range Presets() {
		c, _ := Preset(name)
		if err := c.validate(); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
	// Published parameter counts (tied embeddings counted once).
	for name, want := range map[string]uint64{
		"qwen2.5-0.5b": 494032768,
		"llama-3.2-1b": 1235814400,
		"gemma-3-270m": 268098176,
		"gemma-3-1b":   999885952,
		"gemma-2-2b":   2614341888,
		"smollm3-3b":   3075098624,
		// Phi-3.5-mini's 3 821 079 552 and Phi-4-mini's 3 836 021 760,
		// plus the 2·48 LongRoPE factors (config values in HF, tensors
		// in GGUF).
		"phi-3.5-mini": 3821079552 + 96,
		"phi-4-mini":   3836021760 + 96,
		// From bitnet-b1.58-2B-4T's config (2560 wide, 30 layers, 20/5
		// heads of 128, n_ff 6912, vocab 128 256, tied), with its two
		// sub-norms per layer: the 2.41 B its model card rounds to "2B"
		// without the embedding.
		"bitnet-b1.58-2b-4t": 2412820480,
		// nomic-embed-text-v1.5's safetensors (the "137M" of its card):
		// the 30 528 × 768 embedding, 2 token types, the embedding
		// LayerNorm, and 12 layers of Wqkv, out_proj, fc11, fc12, fc2 (no
		// biases) and two LayerNorms.
		"nomic-embed-text-v1.5": 136731648,
	} {
		c, _ := Preset(name)
		specs, err := plan(&c, c.NVocab)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var params uint64
		kinds := map[gguf.GGMLType]int{}
		for _, s := range specs {
			params += s.numel()
			kinds[s.Type]++
		}
		if params != want {
			t.Errorf("%s: %d parameters, want %d", name, params, want)
		}
		// n_embd 896 and 640 are not multiples of 256: llama.cpp's Q4_K_M
		// falls back to q5_0 / q8_0 for those rows (as in published
		// Qwen2.5-0.5B Q4_K_M files).
		if (name == "qwen2.5-0.5b" || name == "gemma-3-270m") && (kinds[gguf.TypeQ5_0] == 0 || kinds[gguf.TypeQ8_0] == 0) {
			t.Errorf("%s q4_k_m types: %v", name, kinds)
		}
	}
}
