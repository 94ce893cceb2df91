package gen

import (
	"fmt"
	"io"
	"math"
	"os"
	"runtime"

	"github.com/webgguf/webgguf/gguf"
	"golang.org/x/sync/errgroup"
)

// batchElems bounds the float32 values held at once (per batch of rows):
// 4 Mi values = 16 MiB, whatever the model size.
const batchElems = 4 << 20

// Generate writes the model described by c to w as GGUF v3, streaming: the
// header first, then each tensor in batches of rows filled and quantized in
// parallel. The bytes depend only on c (not on GOMAXPROCS).
func Generate(w io.Writer, c Config) error {
	if err := c.validate(); err != nil {
		return err
	}
	if c.Vocab == "" {
		return &ConfigError{"Vocab", "", "a vocab GGUF is required (e.g. testdata/models/vocab-llama3-bpe.gguf)"}
	}
	tokKV, nVocab, err := tokenizerKV(c.Vocab, c.NVocab, c.Specials, c.ChatTemplate)
	if err != nil {
		return err
	}
	tensors, err := plan(&c, nVocab)
	if err != nil {
		return err
	}
	kv := metadata(&c, nVocab, tokKV)
	infos := make([]gguf.TensorInfo, len(tensors))
	for i, t := range tensors {
		infos[i] = gguf.TensorInfo{Name: t.Name, Type: t.Type, Ne: t.Ne}
	}
	gw, err := gguf.NewWriter(w, kv, infos, 0)
	if err != nil {
		return err
	}
	for i := range tensors {
		if err := writeTensor(gw, &tensors[i], c.Seed); err != nil {
			return fmt.Errorf("gen: %s: %w", tensors[i].Name, err)
		}
	}
	return gw.Close()
}

// GenerateFile writes the model to path (created or truncated).
func GenerateFile(path string, c Config) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := Generate(f, c); err != nil {
		f.Close()
		os.Remove(path)
		return err
	}
	return f.Close()
}

func writeTensor(gw *gguf.Writer, t *tensorSpec, seed uint64) error {
	ne0 := int(t.Ne[0])
	rowBytes, _ := t.Type.RowBytes(int64(ne0))
	rows := t.rows()
	batch := max(1, batchElems/ne0)
	workers := runtime.GOMAXPROCS(0)
	tseed := tensorSeed(seed, t.Name)
	buf := make([]byte, int64(min(batch, rows))*rowBytes)
	for r0 := 0; r0 < rows; r0 += batch {
		n := min(batch, rows-r0)
		out := buf[:int64(n)*rowBytes]
		var g errgroup.Group
		per := (n + workers - 1) / workers
		for w0 := 0; w0 < n; w0 += per {
			w1 := min(n, w0+per)
			g.Go(func() error {
				x := make([]float32, ne0)
				for r := w0; r < w1; r++ {
					fillRow(x, t, tseed, r0+r)
					if err := gguf.QuantizeInto(out[int64(r)*rowBytes:int64(r+1)*rowBytes], t.Type, x); err != nil {
						return err
					}
				}
				return nil
			})
		}
		if err := g.Wait(); err != nil {
			return err
		}
		if _, err := gw.Write(out); err != nil {
			return err
		}
	}
	return nil
}

// normEpsKey is the norm epsilon's key: LayerNorm's for the encoders,
// RMSNorm's for the decoders.
func normEpsKey(arch string) string {
	if isEncoder(arch) {
		return "attention.layer_norm_epsilon"
	}
	return "attention.layer_norm_rms_epsilon"
}

// metadata builds the KV section in the converter's order: general.*,
// hyper-parameters under the architecture prefix, tokenizer.* copied from
// the vocab file, then the quantization keys llama-quantize adds.
func metadata(c *Config, nVocab int, tok []gguf.KV) []gguf.KV {
	a := c.Arch + "."
	u := func(v int) gguf.Value { return gguf.ValueOf(uint32(v)) }
	name := c.Name
	if name == "" {
		name = fmt.Sprintf("random %s %dx%d", c.Arch, c.NLayer, c.NEmbd)
	}
	kv := []gguf.KV{
		{Key: "general.architecture", Value: gguf.ValueOf(c.Arch)},
		{Key: "general.name", Value: gguf.ValueOf(name)},
		{Key: a + "context_length", Value: u(c.Ctx)},
		{Key: a + "embedding_length", Value: u(c.NEmbd)},
		{Key: a + "block_count", Value: u(c.NLayer)},
		{Key: a + "feed_forward_length", Value: u(c.NFF)},
		{Key: a + "attention.head_count", Value: u(c.NHead)},
		{Key: a + "attention.head_count_kv", Value: u(c.NHeadKV)},
		{Key: a + normEpsKey(c.Arch), Value: gguf.ValueOf(float32(c.NormEps))},
		{Key: a + "rope.freq_base", Value: gguf.ValueOf(float32(c.RopeTheta))},
		{Key: a + "vocab_size", Value: u(nVocab)},
	}
	switch c.Arch {
	case "llama", "smollm3", "bitnet":
		kv = append(kv, gguf.KV{Key: a + "rope.dimension_count", Value: u(c.headDim())})
	case "phi3":
		// As convert_hf_to_gguf.py's Phi3MiniModel: the original context
		// and LongRoPE's attention factor where the model is scaled, the
		// rotated width, the sliding window (0 when none).
		if c.CtxOrig > 0 {
			kv = append(kv, gguf.KV{Key: a + "rope.scaling.original_context_length", Value: u(c.CtxOrig)})
			f := 1.0
			if s := float64(c.Ctx) / float64(c.CtxOrig); s > 1 {
				f = math.Sqrt(1 + math.Log(s)/math.Log(float64(c.CtxOrig)))
			}
			kv = append(kv, gguf.KV{Key: a + "rope.scaling.attn_factor", Value: gguf.ValueOf(float32(f))})
		}
		kv = append(kv, gguf.KV{Key: a + "rope.dimension_count", Value: u(c.ropeDim())},
			gguf.KV{Key: a + "attention.sliding_window", Value: u(c.Window)})
	case "qwen3":
		kv = append(kv, gguf.KV{Key: a + "attention.key_length", Value: u(c.headDim())},
			gguf.KV{Key: a + "attention.value_length", Value: u(c.headDim())})
	case "gemma3":
		// As convert_hf_to_gguf.py's Gemma3Model: no sliding_window_pattern
		// (llama.cpp's default period 6) and no rope.freq_base_swa
		// (10 000) keys.
		if c.Window > 0 {
			kv = append(kv, gguf.KV{Key: a + "attention.sliding_window", Value: u(c.Window)})
		}
		kv = append(kv, gguf.KV{Key: a + "attention.key_length", Value: u(c.headDim())},
			gguf.KV{Key: a + "attention.value_length", Value: u(c.headDim())})
	case "gemma2":
		// As convert_hf_to_gguf.py's Gemma2Model: the window and both
		// soft-caps (no pattern key: llama.cpp's period 2).
		if c.Window > 0 {
			kv = append(kv, gguf.KV{Key: a + "attention.sliding_window", Value: u(c.Window)})
		}
		for _, sc := range []struct {
			key string
			v   float64
		}{{"attn_logit_softcapping", c.AttnSoftcap}, {"final_logit_softcapping", c.FinalSoftcap}} {
			if sc.v > 0 {
				kv = append(kv, gguf.KV{Key: a + sc.key, Value: gguf.ValueOf(float32(sc.v))})
			}
		}
		kv = append(kv, gguf.KV{Key: a + "attention.key_length", Value: u(c.headDim())},
			gguf.KV{Key: a + "attention.value_length", Value: u(c.headDim())})
	}
	if isEncoder(c.Arch) {
		// As convert_hf_to_gguf.py's BertModel (NomicBertModel extends it):
		// non-causal, the pooling type (the default as each model's
		// sentence-transformers config says: bge's cls, nomic's mean).
		pooling := c.Pooling
		if pooling == 0 {
			pooling = 2
			if c.Arch == "nomic-bert" {
				pooling = 1
			}
		}
		kv = append(kv, gguf.KV{Key: a + "attention.causal", Value: gguf.ValueOf(false)},
			gguf.KV{Key: a + "pooling_type", Value: u(pooling)})
	} else if c.Pooling > 0 {
		kv = append(kv, gguf.KV{Key: a + "pooling_type", Value: u(c.Pooling)})
	}
	kv = append(kv, tok...)
	return append(kv,
		gguf.KV{Key: "general.quantization_version", Value: u(2)},
		gguf.KV{Key: "general.file_type", Value: u(int(fileTypes[c.Type].ftype))})
}
