package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/webgguf/webgguf/gen"
)

func init() {
	commands["gen"] = command{summary: "write a random-weight llama/qwen2/qwen3/gemma3/gemma2/smollm3/phi3/bitnet model (see gen -h)", run: runGen}
}

func runGen(args []string) error {
	fs := flag.NewFlagSet("gen", flag.ContinueOnError)
	preset := fs.String("preset", "", "start from a shape preset: "+strings.Join(gen.Presets(), ", "))
	arch := fs.String("arch", "llama", "architecture: llama, qwen2, qwen3, gemma3, gemma2, smollm3, phi3, bitnet, bert, nomic-bert")
	name := fs.String("name", "", "general.name (default: derived from the shape)")
	nEmbd := fs.Int("n-embd", 256, "embedding width")
	nLayer := fs.Int("n-layer", 2, "number of blocks")
	nHead := fs.Int("n-head", 4, "query heads")
	nHeadKV := fs.Int("n-head-kv", 0, "key/value heads (default: n-head)")
	nFF := fs.Int("n-ff", 768, "feed-forward width")
	headDim := fs.Int("head-dim", 0, "head width (qwen3, gemma3 and gemma2 only; default n-embd/n-head)")
	nVocab := fs.Int("n-vocab", 0, "vocab size (default: the vocab file's; larger pads with [PAD<id>] tokens)")
	ctx := fs.Int("ctx", 4096, "context_length")
	theta := fs.Float64("rope-theta", 10000, "rope.freq_base")
	eps := fs.Float64("norm-eps", 1e-5, "RMSNorm epsilon")
	window := fs.Int("window", 0, "sliding window of gemma3's and gemma2's local layers (attention.sliding_window; 0: none; phi3: written, ignored like llama.cpp)")
	attnCap := fs.Float64("attn-softcap", 0, "gemma2's attention soft-cap (attn_logit_softcapping; 0: no key, llama.cpp's 50)")
	finalCap := fs.Float64("final-softcap", 0, "gemma2's logit soft-cap (final_logit_softcapping; 0: no key, llama.cpp's 30)")
	ropeDim := fs.Int("rope-dim", 0, "phi3's rotated width per head (rope.dimension_count; 0: the head width)")
	ctxOrig := fs.Int("ctx-orig", 0, "phi3 LongRoPE: the original context (0: not scaled; writes the attention factor and rope_factors_short/long)")
	tied := fs.Bool("tied", true, "tie output to token_embd (no output.weight)")
	untied := fs.Bool("untied", false, "write a separate output.weight")
	typ := fs.String("type", "q8_0", "file type: "+strings.Join(gen.Types(), ", "))
	seed := fs.Uint64("seed", 1, "random seed (same seed and flags → same bytes)")
	vocab := fs.String("vocab", "", "GGUF whose tokenizer.* metadata is copied (e.g. testdata/models/vocab-llama3-bpe.gguf)")
	out := fs.String("out", "", "output file")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: webgguf gen [--preset NAME] [flags] --out FILE.gguf")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return err
	}
	if *out == "" {
		return errors.New("--out is required")
	}
	c := gen.Config{Arch: *arch, Name: *name, NEmbd: *nEmbd, NLayer: *nLayer, NHead: *nHead, NHeadKV: *nHeadKV, NFF: *nFF,
		HeadDim: *headDim, NVocab: *nVocab, Ctx: *ctx, RopeTheta: *theta, NormEps: *eps, Window: *window,
		AttnSoftcap: *attnCap, FinalSoftcap: *finalCap, RopeDim: *ropeDim, CtxOrig: *ctxOrig, Tied: *tied && !*untied,
		Type: *typ, Seed: *seed, Vocab: *vocab}
	if *preset != "" {
		p, ok := gen.Preset(*preset)
		if !ok {
			return fmt.Errorf("unknown preset %q (have %s)", *preset, strings.Join(gen.Presets(), ", "))
		}
		// Flags given explicitly override the preset.
		fs.Visit(func(f *flag.Flag) {
			switch f.Name {
			case "arch":
				p.Arch = c.Arch
			case "name":
				p.Name = c.Name
			case "n-embd":
				p.NEmbd = c.NEmbd
			case "n-layer":
				p.NLayer = c.NLayer
			case "n-head":
				p.NHead = c.NHead
			case "n-head-kv":
				p.NHeadKV = c.NHeadKV
			case "n-ff":
				p.NFF = c.NFF
			case "head-dim":
				p.HeadDim = c.HeadDim
			case "n-vocab":
				p.NVocab = c.NVocab
			case "ctx":
				p.Ctx = c.Ctx
			case "rope-theta":
				p.RopeTheta = c.RopeTheta
			case "norm-eps":
				p.NormEps = c.NormEps
			case "window":
				p.Window = c.Window
			case "attn-softcap":
				p.AttnSoftcap = c.AttnSoftcap
			case "final-softcap":
				p.FinalSoftcap = c.FinalSoftcap
			case "rope-dim":
				p.RopeDim = c.RopeDim
			case "ctx-orig":
				p.CtxOrig = c.CtxOrig
			case "tied", "untied":
				p.Tied = c.Tied
			case "type":
				p.Type = c.Type
			case "seed":
				p.Seed = c.Seed
			case "vocab":
				p.Vocab = c.Vocab
			}
		})
		c = p
	}
	if c.NHeadKV == 0 {
		c.NHeadKV = c.NHead
	}
	start := time.Now()
	if err := gen.GenerateFile(*out, c); err != nil {
		return err
	}
	st, err := os.Stat(*out)
	if err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "wrote %s: %s %s, %d bytes in %v\n", *out, c.Arch, c.Type, st.Size(), time.Since(start).Round(time.Millisecond))
	return nil
}
