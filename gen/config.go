package gen

import (
	"fmt"
	"sort"
)

// Config describes the model to generate.
type Config struct {
	Arch      string  // "llama", "qwen2", "qwen3", "gemma3", "gemma2", "smollm3", "phi3", "bitnet", "bert" or "nomic-bert"
	Name      string  // general.name
	NEmbd     int     // embedding width
	NLayer    int     // transformer blocks
	NHead     int     // query heads
	NHeadKV   int     // key/value heads (GQA when < NHead)
	NFF       int     // feed-forward width
	HeadDim   int     // per-head width; 0 = NEmbd/NHead (qwen3, gemma3 and gemma2 may differ)
	NVocab    int     // 0 = the vocab file's token count; larger pads like the HF converter
	Ctx       int     // context_length
	RopeTheta float64 // rope.freq_base
	NormEps   float64 // attention.layer_norm_rms_epsilon
	Window    int     // attention.sliding_window (gemma3: on 5 layers of 6, gemma2: even layers; phi3: written, ignored as llama.cpp does); 0 = none
	// RopeDim is rope.dimension_count, the rotated dims of a head
	// (phi3's partial rotary); 0 = the head width.
	RopeDim int
	// CtxOrig, when > 0, makes a phi3 model LongRoPE-scaled as
	// convert_hf_to_gguf.py writes Phi-3.5/Phi-4-mini: the original
	// context (rope.scaling.original_context_length), the attention
	// factor sqrt(1 + ln(Ctx/CtxOrig)/ln(CtxOrig)) and the
	// rope_factors_short/long tensors (RopeDim/2 each).
	CtxOrig int
	// AttnSoftcap and FinalSoftcap are gemma2's attn_logit_softcapping
	// and final_logit_softcapping; 0 writes no key (llama.cpp then
	// assumes 50 and 30).
	AttnSoftcap, FinalSoftcap float64
	Tied                      bool   // no output.weight: the output reuses token_embd
	Type                      string // file type, see Types
	Seed                      uint64 // weights are a deterministic function of Seed
	Vocab                     string // path of the GGUF whose tokenizer.* keys are copied
	// Specials are control tokens written at the first padding ids (the
	// ids from the vocab file's token count on, when NVocab pads it); left
	// out when there are not enough padding ids.
	Specials []string
	// ChatTemplate, when set, is written as tokenizer.chat_template
	// (replacing the vocab file's).
	ChatTemplate string
	// Pooling, when > 0, is written as {arch}.pooling_type (llama.cpp's
	// numbering: 1 mean, 2 cls, 3 last, 4 rank): an embedding model. bert
	// and nomic-bert are always one (0 writes cls for bert, mean for
	// nomic-bert).
	Pooling int
}

// Limits keep a mistyped flag from asking for an absurd allocation.
const (
	maxDim    = 1 << 20
	maxLayers = 1024
	maxParams = 1 << 36
)

// ConfigError names the Config field that is unusable and why.
type ConfigError struct {
	Field  string
	Value  any
	Reason string
}

// Error names the field, its value and why it is unusable.
func (e *ConfigError) Error() string {
	return fmt.Sprintf("gen: %s = %v: %s", e.Field, e.Value, e.Reason)
}

var presets = map[string]Config{
	// Shape of meta-llama/Llama-3.2-1B (llama3 rope scaling not modelled).
	"llama-3.2-1b": {Arch: "llama", Name: "Llama-3.2-1B (random weights)", NEmbd: 2048, NLayer: 16, NHead: 32, NHeadKV: 8,
		NFF: 8192, NVocab: 128256, Ctx: 131072, RopeTheta: 500000, NormEps: 1e-5, Tied: true,
		Vocab: "testdata/models/vocab-llama3-bpe.gguf"},
	// Shape of Qwen/Qwen2.5-0.5B: q/k/v biases, tied embeddings.
	"qwen2.5-0.5b": {Arch: "qwen2", Name: "Qwen2.5-0.5B (random weights)", NEmbd: 896, NLayer: 24, NHead: 14, NHeadKV: 2,
		NFF: 4864, NVocab: 151936, Ctx: 32768, RopeTheta: 1000000, NormEps: 1e-6, Tied: true,
		Vocab: "testdata/models/vocab-qwen3-bpe.gguf"},
	// Shape of Qwen/Qwen3-0.6B: head_dim 128 with n_embd 1024, q/k norms.
	"qwen3-0.6b": {Arch: "qwen3", Name: "Qwen3-0.6B (random weights)", NEmbd: 1024, NLayer: 28, NHead: 16, NHeadKV: 8,
		NFF: 3072, HeadDim: 128, NVocab: 151936, Ctx: 40960, RopeTheta: 1000000, NormEps: 1e-6, Tied: true,
		Vocab: "testdata/models/vocab-qwen3-bpe.gguf"},
	// Shape of Qwen/Qwen3-Embedding-0.6B: Qwen3-0.6B's with last pooling
	// and the embedding model's 151 669 rows.
	"qwen3-embedding-0.6b": {Arch: "qwen3", Name: "Qwen3-Embedding-0.6B (random weights)", NEmbd: 1024, NLayer: 28, NHead: 16, NHeadKV: 8,
		NFF: 3072, HeadDim: 128, NVocab: 151669, Ctx: 32768, RopeTheta: 1000000, NormEps: 1e-6, Tied: true, Pooling: 3,
		Vocab: "testdata/models/vocab-qwen3-bpe.gguf"},
	// Shape of BAAI/bge-small-en-v1.5: a BERT encoder with CLS pooling
	// and its WordPiece vocabulary (llama.cpp's ggml-vocab-bert-bge).
	"bge-small-en-v1.5": {Arch: "bert", Name: "bge-small-en-v1.5 (random weights)", NEmbd: 384, NLayer: 12, NHead: 12, NHeadKV: 12,
		NFF: 1536, Ctx: 512, RopeTheta: 10000, NormEps: 1e-12, Tied: true, Pooling: 2,
		Vocab: "testdata/models/vocab-bert-bge.gguf"},
	// Shape of nomic-ai/nomic-embed-text-v1.5 as llama.cpp's converter
	// writes it: nomic-bert, 768 wide, 12 layers of 12 heads, SwiGLU n_ff
	// 3072, RoPE base 1000, context 2048 (the converter's, not the HF
	// config's 8192), mean pooling, bert-base-uncased's WordPiece vocab
	// (llama.cpp's ggml-vocab-bert-bge) padded to its 30 528 rows.
	"nomic-embed-text-v1.5": {Arch: "nomic-bert", Name: "nomic-embed-text-v1.5 (random weights)", NEmbd: 768, NLayer: 12, NHead: 12, NHeadKV: 12,
		NFF: 3072, NVocab: 30528, Ctx: 2048, RopeTheta: 1000, NormEps: 1e-12, Tied: true, Pooling: 1,
		Vocab: "testdata/models/vocab-bert-bge.gguf"},
	// Shape of google/gemma-3-270m: head_dim 256 with n_embd 640, MQA,
	// sliding window 512 on 5 layers of 6. The vocab is Llama 2's
	// SentencePiece one (Gemma's is SentencePiece too) padded to Gemma's
	// 262 144 rows, with <start_of_turn>/<end_of_turn> for the chat template.
	"gemma-3-270m": {Arch: "gemma3", Name: "Gemma-3-270M (random weights)", NEmbd: 640, NLayer: 18, NHead: 4, NHeadKV: 1,
		NFF: 2048, HeadDim: 256, NVocab: 262144, Ctx: 32768, RopeTheta: 1000000, NormEps: 1e-6, Window: 512, Tied: true,
		Vocab: "testdata/models/vocab-llama-spm.gguf", Specials: gemmaSpecials, ChatTemplate: gemmaChatTemplate},
	// Shape of google/gemma-3-1b-pt/-it; vocab as gemma-3-270m.
	"gemma-3-1b": {Arch: "gemma3", Name: "Gemma-3-1B (random weights)", NEmbd: 1152, NLayer: 26, NHead: 4, NHeadKV: 1,
		NFF: 6912, HeadDim: 256, NVocab: 262144, Ctx: 32768, RopeTheta: 1000000, NormEps: 1e-6, Window: 512, Tied: true,
		Vocab: "testdata/models/vocab-llama-spm.gguf", Specials: gemmaSpecials, ChatTemplate: gemmaChatTemplate},
	// Shape of google/gemma-2-2b(-it): head_dim 256 with n_embd 2304,
	// window 4096 on the even layers, soft-caps 50 (attention) and 30
	// (logits). Gemma's 256 000-token vocab is stood in for as gemma-3's
	// is, with Gemma 2's chat template.
	"gemma-2-2b": {Arch: "gemma2", Name: "Gemma-2-2B (random weights)", NEmbd: 2304, NLayer: 26, NHead: 8, NHeadKV: 4,
		NFF: 9216, HeadDim: 256, NVocab: 256000, Ctx: 8192, RopeTheta: 10000, NormEps: 1e-6, Window: 4096,
		AttnSoftcap: 50, FinalSoftcap: 30, Tied: true,
		Vocab: "testdata/models/vocab-llama-spm.gguf", Specials: gemmaSpecials, ChatTemplate: gemma2ChatTemplate},
	// Shape of HuggingFaceTB/SmolLM3-3B: llama blocks, RoPE base 5e6, no
	// RoPE on every fourth layer (llama.cpp's constant, no key), tied
	// embeddings, Llama 3's 128 256-token BPE vocab. SmolLM3's own chat
	// template needs its <|im_start|>/<|im_end|> tokens, which Llama 3's
	// vocab lacks, so the vocab file's template stays.
	// Shape of microsoft/Phi-3.5-mini-instruct: fused attn_qkv and
	// gate/up, LongRoPE (131 072 from 4096), untied output, sliding_window
	// 262 144 as its converter writes it (llama.cpp ignores it). The
	// vocab is Llama 2's SentencePiece one, which Phi-3's extends: padded
	// to 32 064 with Phi-3's added tokens at their own ids (32000 on).
	"phi-3.5-mini": {Arch: "phi3", Name: "Phi-3.5-mini (random weights)", NEmbd: 3072, NLayer: 32, NHead: 32, NHeadKV: 32,
		NFF: 8192, NVocab: 32064, Ctx: 131072, CtxOrig: 4096, RopeTheta: 10000, NormEps: 1e-5, Window: 262144,
		Vocab: "testdata/models/vocab-llama-spm.gguf", Specials: phi3Specials, ChatTemplate: phi3ChatTemplate},
	// Shape of microsoft/Phi-4-mini-instruct: GQA 24/8, partial rotary
	// (96 of 128), LongRoPE, tied embeddings. Its 200 064-token o200k BPE
	// vocab is stood in for by Llama 3's byte-level BPE, padded, with
	// Phi-4-mini's chat tokens.
	"phi-4-mini": {Arch: "phi3", Name: "Phi-4-mini (random weights)", NEmbd: 3072, NLayer: 32, NHead: 24, NHeadKV: 8,
		NFF: 8192, NVocab: 200064, Ctx: 131072, CtxOrig: 4096, RopeDim: 96, RopeTheta: 10000, NormEps: 1e-5, Window: 262144, Tied: true,
		Vocab: "testdata/models/vocab-llama3-bpe.gguf", Specials: phi4Specials, ChatTemplate: phi4ChatTemplate},
	// Shape of microsoft/bitnet-b1.58-2B-4T (GQA 20/5, head 128, n_ff
	// 6912, tied, Llama 3's vocab) as llama.cpp's bitnet architecture:
	// its sub-norms, with the SiLU gate llama.cpp's bitnet graph uses (the
	// 2B-4T itself is trained with squared ReLU). Ternary weights by default
	// (TQ2_0; --type tq1_0 for base-3 packing).
	"bitnet-b1.58-2b-4t": {Arch: "bitnet", Name: "BitNet-b1.58-2B-4T shape (random weights)", NEmbd: 2560, NLayer: 30, NHead: 20, NHeadKV: 5,
		NFF: 6912, NVocab: 128256, Ctx: 4096, RopeTheta: 500000, NormEps: 1e-5, Tied: true, Type: "tq2_0",
		Vocab: "testdata/models/vocab-llama3-bpe.gguf"},
	"smollm3-3b": {Arch: "smollm3", Name: "SmolLM3-3B (random weights)", NEmbd: 2048, NLayer: 36, NHead: 16, NHeadKV: 4,
		NFF: 11008, NVocab: 128256, Ctx: 65536, RopeTheta: 5e6, NormEps: 1e-6, Tied: true,
		Vocab: "testdata/models/vocab-llama3-bpe.gguf"},
}

// phi3Specials are Phi-3's added tokens, ids 32000-32010 in its vocab
// (the first padding ids of Llama 2's 32 000).
var phi3Specials = []string{"<|endoftext|>", "<|assistant|>", "<|placeholder1|>", "<|placeholder2|>", "<|placeholder3|>",
	"<|placeholder4|>", "<|system|>", "<|end|>", "<|placeholder5|>", "<|placeholder6|>", "<|user|>"}

// phi3ChatTemplate is tokenizer.chat_template of
// microsoft/Phi-3.5-mini-instruct.
const phi3ChatTemplate = "{% for message in messages %}{% if message['role'] == 'system' and message['content'] %}" +
	"{{'<|system|>\n' + message['content'] + '<|end|>\n'}}{% elif message['role'] == 'user' %}" +
	"{{'<|user|>\n' + message['content'] + '<|end|>\n'}}{% elif message['role'] == 'assistant' %}" +
	"{{'<|assistant|>\n' + message['content'] + '<|end|>\n'}}{% endif %}{% endfor %}" +
	"{% if add_generation_prompt %}{{ '<|assistant|>\n' }}{% else %}{{ eos_token }}{% endif %}"

// phi4Specials are the tokens Phi-4-mini's chat template writes.
var phi4Specials = []string{"<|system|>", "<|user|>", "<|assistant|>", "<|end|>", "<|tool|>", "<|/tool|>"}

// phi4ChatTemplate is tokenizer.chat_template of
// microsoft/Phi-4-mini-instruct.
const phi4ChatTemplate = "{% for message in messages %}{% if message['role'] == 'system' and 'tools' in message and message['tools'] is not none %}" +
	"{{ '<|' + message['role'] + '|>' + message['content'] + '<|tool|>' + message['tools'] + '<|/tool|>' + '<|end|>' }}" +
	"{% else %}{{ '<|' + message['role'] + '|>' + message['content'] + '<|end|>' }}{% endif %}{% endfor %}" +
	"{% if add_generation_prompt %}{{ '<|assistant|>' }}{% else %}{{ eos_token }}{% endif %}"

// gemma2ChatTemplate is tokenizer.chat_template of Gemma 2's instruction
// tuned models (google/gemma-2-*-it): Gemma 1's turns after bos_token, no
// system role.
const gemma2ChatTemplate = "{{ bos_token }}{% if messages[0]['role'] == 'system' %}{{ raise_exception('System role not supported') }}{% endif %}" +
	"{% for message in messages %}{% if (message['role'] == 'user') != (loop.index0 % 2 == 0) %}" +
	"{{ raise_exception('Conversation roles must alternate user/assistant/user/assistant/...') }}{% endif %}" +
	"{% if (message['role'] == 'assistant') %}{% set role = 'model' %}{% else %}{% set role = message['role'] %}{% endif %}" +
	"{{ '<start_of_turn>' + role + '\\n' + message['content'] | trim + '<end_of_turn>\\n' }}{% endfor %}" +
	"{% if add_generation_prompt %}{{'<start_of_turn>model\\n'}}{% endif %}"

// gemmaSpecials are the Gemma turn markers that gemmaChatTemplate writes
// (ids 105 and 106 in Gemma's own vocab; the first padding ids here).
var gemmaSpecials = []string{"<start_of_turn>", "<end_of_turn>"}

// gemmaChatTemplate is tokenizer.chat_template of Gemma 3's instruction
// tuned models (google/gemma-3-*-it's tokenizer_config.json, as the
// converter copies it into their GGUF files).
const gemmaChatTemplate = `{{ bos_token }}
{%- if messages[0]['role'] == 'system' -%}
    {%- if messages[0]['content'] is string -%}
        {%- set first_user_prefix = messages[0]['content'] + '\n\n' -%}
    {%- else -%}
        {%- set first_user_prefix = messages[0]['content'][0]['text'] + '\n\n' -%}
    {%- endif -%}
    {%- set loop_messages = messages[1:] -%}
{%- else -%}
    {%- set first_user_prefix = "" -%}
    {%- set loop_messages = messages -%}
{%- endif -%}
{%- for message in loop_messages -%}
    {%- if (message['role'] == 'user') != (loop.index0 % 2 == 0) -%}
        {{ raise_exception("Conversation roles must alternate user/assistant/user/assistant/...") }}
    {%- endif -%}
    {%- if (message['role'] == 'assistant') -%}
        {%- set role = "model" -%}
    {%- else -%}
        {%- set role = message['role'] -%}
    {%- endif -%}
    {{ '<start_of_turn>' + role + '\n' + (first_user_prefix if loop.first else "") }}
    {%- if message['content'] is string -%}
        {{ message['content'] | trim }}
    {%- elif message['content'] is iterable -%}
        {%- for item in message['content'] -%}
            {%- if item['type'] == 'image' -%}
                {{ '<start_of_image>' }}
            {%- elif item['type'] == 'text' -%}
                {{ item['text'] | trim }}
            {%- endif -%}
        {%- endfor -%}
    {%- else -%}
        {{ raise_exception("Invalid content type") }}
    {%- endif -%}
    {{ '<end_of_turn>\n' }}
{%- endfor -%}
{%- if add_generation_prompt -%}
    {{'<start_of_turn>model\n'}}
{%- endif -%}
`

// Preset returns the named shape preset (see Presets), with Type q4_k_m
// (tq2_0 for the ternary BitNet shape) and Seed 1 unless changed by the
// caller.
func Preset(name string) (Config, bool) {
	c, ok := presets[name]
	if ok {
		if c.Type == "" {
			c.Type = "q4_k_m"
		}
		c.Seed = 1
		c.Specials = append([]string(nil), c.Specials...)
	}
	return c, ok
}

// Presets lists the preset names.
func Presets() []string {
	var n []string
	for k := range presets {
		n = append(n, k)
	}
	sort.Strings(n)
	return n
}

func isGemma(arch string) bool { return arch == "gemma3" || arch == "gemma2" }

// isEncoder reports the BERT family: LayerNorm, non-causal, always pooled.
func isEncoder(arch string) bool { return arch == "bert" || arch == "nomic-bert" }

// headDim returns the per-head width.
func (c *Config) headDim() int {
	if c.HeadDim != 0 {
		return c.HeadDim
	}
	if c.NHead == 0 {
		return 0
	}
	return c.NEmbd / c.NHead
}

// ropeDim is the rotated width of a head.
func (c *Config) ropeDim() int {
	if c.RopeDim != 0 {
		return c.RopeDim
	}
	return c.headDim()
}

// validate checks the shape (not the vocab, which needs the file).
func (c *Config) validate() error {
	switch c.Arch {
	case "llama", "qwen2", "qwen3", "gemma3", "gemma2", "smollm3", "phi3", "bitnet", "bert", "nomic-bert":
	default:
		return &ConfigError{"Arch", c.Arch, "want llama, qwen2, qwen3, gemma3, gemma2, smollm3, phi3, bitnet, bert or nomic-bert"}
	}
	if c.Pooling < 0 || c.Pooling > 4 || (c.Pooling != 0 && !isEncoder(c.Arch) && c.Arch != "llama" && c.Arch != "qwen2" && c.Arch != "qwen3") ||
		(c.Pooling == 4 && c.Arch != "bert") {
		return &ConfigError{"Pooling", c.Pooling, "a pooling type in [0, 4] is for bert, nomic-bert, llama, qwen2 and qwen3 (rank: bert only)"}
	}
	for _, f := range []struct {
		name string
		v    int
		max  int
	}{{"NEmbd", c.NEmbd, maxDim}, {"NLayer", c.NLayer, maxLayers}, {"NHead", c.NHead, maxDim}, {"NHeadKV", c.NHeadKV, maxDim},
		{"NFF", c.NFF, maxDim}, {"Ctx", c.Ctx, 1 << 24}} {
		if f.v < 1 || f.v > f.max {
			return &ConfigError{f.name, f.v, fmt.Sprintf("must be in [1, %d]", f.max)}
		}
	}
	if c.HeadDim < 0 || c.HeadDim > maxDim || c.NVocab < 0 || c.NVocab > 1<<24 {
		return &ConfigError{"HeadDim/NVocab", [2]int{c.HeadDim, c.NVocab}, "out of range"}
	}
	if c.HeadDim != 0 && c.Arch != "qwen3" && !isGemma(c.Arch) && c.HeadDim != c.NEmbd/c.NHead {
		return &ConfigError{"HeadDim", c.HeadDim, "only qwen3, gemma3 and gemma2 may set a head width other than NEmbd/NHead"}
	}
	if c.Window < 0 || c.Window > 1<<24 || (c.Window != 0 && !isGemma(c.Arch) && c.Arch != "phi3") {
		return &ConfigError{"Window", c.Window, "a sliding window in [0, 2^24] is for gemma3, gemma2 and phi3 only"}
	}
	if c.RopeDim != 0 && (c.Arch != "phi3" || c.RopeDim < 2 || c.RopeDim%2 != 0 || c.RopeDim > c.headDim()) {
		return &ConfigError{"RopeDim", c.RopeDim, "a partial rotary width is for phi3 only: even, in [2, head width]"}
	}
	if c.CtxOrig != 0 && (c.Arch != "phi3" || c.CtxOrig < 2 || c.CtxOrig > c.Ctx) {
		return &ConfigError{"CtxOrig", c.CtxOrig, "LongRoPE is for phi3 only, with an original context in [2, Ctx]"}
	}
	for _, f := range []struct {
		name string
		v    float64
	}{{"AttnSoftcap", c.AttnSoftcap}, {"FinalSoftcap", c.FinalSoftcap}} {
		if !(f.v >= 0 && f.v < 1e6) || (f.v != 0 && c.Arch != "gemma2") {
			return &ConfigError{f.name, f.v, "a soft-cap in [0, 1e6) is for gemma2 only"}
		}
	}
	if c.HeadDim == 0 && c.NEmbd%c.NHead != 0 {
		return &ConfigError{"NHead", c.NHead, fmt.Sprintf("must divide NEmbd %d", c.NEmbd)}
	}
	if c.headDim()%2 != 0 {
		return &ConfigError{"HeadDim", c.headDim(), "rope needs an even head width"}
	}
	if c.NHead%c.NHeadKV != 0 {
		return &ConfigError{"NHeadKV", c.NHeadKV, fmt.Sprintf("must divide NHead %d", c.NHead)}
	}
	if !(c.RopeTheta > 0) {
		return &ConfigError{"RopeTheta", c.RopeTheta, "must be positive"}
	}
	if !(c.NormEps > 0 && c.NormEps < 1) {
		return &ConfigError{"NormEps", c.NormEps, "must be in (0, 1)"}
	}
	if _, ok := fileTypes[c.Type]; !ok {
		return &ConfigError{"Type", c.Type, fmt.Sprintf("want one of %v", Types())}
	}
	return nil
}
