package gguf

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"testing"
)

// refTensorInfo is one tensor of testdata/ref/dequant.ref.json, written by
// llama.cpp's gguf-py (type, shape, absolute data offset, values).
type refTensorInfo struct {
	Name       string    `json:"name"`
	Type       string    `json:"type"`
	GGMLType   uint32    `json:"ggml_type"`
	Ne         []uint64  `json:"ne"`
	N          int64     `json:"n"`
	First      []float64 `json:"first"`
	Last       []float64 `json:"last"`
	DataOffset int64     `json:"data_offset"`
}

func loadRefInfo(t *testing.T) map[string][]refTensorInfo {
	t.Helper()
	raw, err := os.ReadFile("../testdata/ref/dequant.ref.json")
	if err != nil {
		t.Fatal(err)
	}
	var ref map[string][]refTensorInfo
	if err := json.Unmarshal(raw, &ref); err != nil {
		t.Fatal(err)
	}
	if len(ref) == 0 {
		t.Fatal("empty dequant.ref.json")
	}
	return ref
}

// TestFixturesParse opens every fixture model, vocab-only ones included,
// and checks the tensor tables against llama.cpp's listing: names, ggml
// types, shapes, absolute data offsets, and — read through StreamTensor in
// odd-sized chunks — the first and last values llama.cpp dequantized.
func TestFixturesParse(t *testing.T) {
	ref := loadRefInfo(t)
	models, _ := filepath.Glob("../testdata/models/*.gguf")
	if len(models) < 12 {
		t.Fatalf("found %d fixture models, want 12", len(models))
	}
	for _, path := range models {
		f, err := OpenPath(path)
		if err != nil {
			t.Errorf("%s: %v", path, err)
			continue
		}
		defer f.Close()
		if f.Version != 3 || len(f.KV) == 0 {
			t.Errorf("%s: version %d, %d keys", path, f.Version, len(f.KV))
		}
		want, ok := ref[filepath.Base(path)]
		if !ok {
			continue
		}
		if len(f.Tensors) != len(want) {
			t.Errorf("%s: %d tensors, llama.cpp lists %d", path, len(f.Tensors), len(want))
		}
		for _, w := range want {
			checkRefTensor(t, f, filepath.Base(path), w)
		}
	}
}

func checkRefTensor(t *testing.T, f *File, file string, w refTensorInfo) {
	t.Helper()
	ti, ok := f.Tensor(w.Name)
	if !ok {
		t.Errorf("%s: tensor %q missing", file, w.Name)
		return
	}
	if uint32(ti.Type) != w.GGMLType || !equalFold(ti.Type.String(), w.Type) {
		t.Errorf("%s %s: type %v, want %s (%d)", file, w.Name, ti.Type, w.Type, w.GGMLType)
	}
	if !equalU64(ti.Ne, w.Ne) || ti.NElements() != w.N {
		t.Errorf("%s %s: ne %v (%d), want %v (%d)", file, w.Name, ti.Ne, ti.NElements(), w.Ne, w.N)
	}
	if got := f.DataOffset + int64(ti.Offset); got != w.DataOffset {
		t.Errorf("%s %s: data at %d, want %d", file, w.Name, got, w.DataOffset)
	}
	var raw []byte
	err := f.StreamTensor(ti, make([]byte, 1000), func(off int64, chunk []byte) error {
		if off != int64(len(raw)) {
			t.Errorf("%s %s: chunk at %d after %d bytes", file, w.Name, off, len(raw))
		}
		raw = append(raw, chunk...)
		return nil
	})
	if err != nil || int64(len(raw)) != ti.Size {
		t.Errorf("%s %s: streamed %d of %d bytes: %v", file, w.Name, len(raw), ti.Size, err)
		return
	}
	vals, err := Dequantize(ti.Type, raw, int(ti.NElements()))
	if err != nil {
		t.Errorf("%s %s: %v", file, w.Name, err)
		return
	}
	for i, x := range w.First {
		if vals[i] != float32(x) && !(math.IsNaN(x) && math.IsNaN(float64(vals[i]))) {
			t.Errorf("%s %s: value %d = %v, llama.cpp %v", file, w.Name, i, vals[i], x)
			return
		}
	}
	tail := vals[len(vals)-len(w.Last):]
	for i, x := range w.Last {
		if tail[i] != float32(x) {
			t.Errorf("%s %s: value -%d = %v, llama.cpp %v", file, w.Name, len(w.Last)-i, tail[i], x)
			return
		}
	}
}

func equalU64(a, b []uint64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestFixtureMetadata spot-checks metadata against the facts stated in
// testdata/FIXTURES.md, through the typed accessors and {arch} keys.
func TestFixtureMetadata(t *testing.T) {
	type u = map[string]uint64
	cases := []struct {
		file   string
		arch   string
		uints  u
		tokens int
		pre    string
		tmpl   bool
		has    []string
	}{
		{"tiny-llama-f16.gguf", "llama", u{"{arch}.embedding_length": 256, "{arch}.block_count": 2, "{arch}.attention.head_count": 4, "{arch}.attention.head_count_kv": 2, "{arch}.feed_forward_length": 768}, 4096, "", false, []string{"token_embd.weight"}},
		{"tiny-llama-untied-q8_0.gguf", "llama", u{"{arch}.attention.head_count_kv": 4}, 4096, "", false, []string{"output.weight"}},
		{"tiny-qwen2-q8_0.gguf", "qwen2", u{"{arch}.block_count": 2}, 4096, "", false, []string{"blk.0.attn_q.bias", "blk.1.attn_v.bias"}},
		{"tiny-qwen3-q8_0.gguf", "qwen3", u{"{arch}.embedding_length": 128, "{arch}.attention.key_length": 64}, 4096, "", false, []string{"blk.0.attn_q_norm.weight", "blk.0.attn_k_norm.weight"}},
		{"gotiny-q4_k_m.gguf", "llama", u{"{arch}.embedding_length": 512, "{arch}.block_count": 8, "{arch}.attention.head_count": 8, "{arch}.attention.head_count_kv": 2, "{arch}.feed_forward_length": 1536, "{arch}.context_length": 1024}, 4096, "gpt-2", false, nil},
		{"vocab-llama-spm.gguf", "", nil, 32000, "", false, nil},
		{"vocab-llama3-bpe.gguf", "", nil, 128256, "llama-bpe", true, nil},
		{"vocab-qwen3-bpe.gguf", "", nil, 151669, "qwen2", true, nil},
	}
	for _, c := range cases {
		f, err := OpenPath("../testdata/models/" + c.file)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if c.arch != "" && f.Arch() != c.arch {
			t.Errorf("%s: arch %q, want %q", c.file, f.Arch(), c.arch)
		}
		for k, want := range c.uints {
			if got, ok := f.Uint(k); !ok || got != want {
				t.Errorf("%s: %s = %d (%v), want %d", c.file, k, got, ok, want)
			}
		}
		toks, ok := f.Strings("tokenizer.ggml.tokens")
		if !ok || len(toks) != c.tokens {
			t.Errorf("%s: %d tokens, want %d", c.file, len(toks), c.tokens)
		}
		if c.pre != "" {
			if got, _ := f.String("tokenizer.ggml.pre"); got != c.pre {
				t.Errorf("%s: pre %q, want %q", c.file, got, c.pre)
			}
		}
		if tmpl, ok := f.String("tokenizer.chat_template"); c.tmpl && (!ok || len(tmpl) < 100) {
			t.Errorf("%s: chat template missing", c.file)
		}
		for _, name := range c.has {
			if _, ok := f.Tensor(name); !ok {
				t.Errorf("%s: tensor %s missing", c.file, name)
			}
		}
	}
}

// TestVocabArrays checks the per-token arrays agree in length and type
// with the token list, through Ints/Floats conversions.
func TestVocabArrays(t *testing.T) {
	f, err := OpenPath("../testdata/models/vocab-llama-spm.gguf")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	toks, _ := f.Strings("tokenizer.ggml.tokens")
	scores, ok := f.Floats("tokenizer.ggml.scores")
	types, ok2 := f.Ints("tokenizer.ggml.token_type")
	if !ok || !ok2 || len(scores) != len(toks) || len(types) != len(toks) {
		t.Fatalf("scores %d (%v), types %d (%v), tokens %d", len(scores), ok, len(types), ok2, len(toks))
	}
	// SentencePiece Llama-2: token 0 is <unk> (type 2), 1 <s> and 2 </s>
	// are control (3); this tokenizer.model spells them "\n<s>\n" and
	// "\n</s>\n" (the bytes in the file, checked with a hex dump).
	if toks[0] != "<unk>" || toks[1] != "\n<s>\n" || toks[2] != "\n</s>\n" || types[0] != 2 || types[1] != 3 || types[2] != 3 {
		t.Errorf("tokens %q types %v", toks[:3], types[:3])
	}
	if bos, ok := f.Uint("tokenizer.ggml.bos_token_id"); !ok || bos != 1 {
		t.Errorf("bos %d %v", bos, ok)
	}
}
