// Package oracletest judges the engine live against llama.cpp
// (node-llama-cpp through scripts/oracle) on models written by package gen;
// it is its own package so that package engine's tests do not depend on
// the generator and the oracle client.
package oracletest

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/webgguf/webgguf/engine"
	"github.com/webgguf/webgguf/engine/refcheck"
	"github.com/webgguf/webgguf/engine/reference"
	"github.com/webgguf/webgguf/gen"
)

// oracleShapes are generated models (package gen, loadable by llama.cpp)
// covering GQA ratios 1, 2, 4 and 8, head width 64 and 128, n_embd not a
// multiple of 256, untied output, and the architectures llama, qwen2,
// qwen3, gemma2, smollm3 and phi3.
var oracleShapes = []gen.Config{
	{Arch: "llama", NEmbd: 320, NLayer: 2, NHead: 5, NHeadKV: 5, NFF: 512, Type: "q8_0"},
	{Arch: "llama", NEmbd: 256, NLayer: 2, NHead: 4, NHeadKV: 2, NFF: 512, Type: "q4_k_m"},
	{Arch: "llama", NEmbd: 512, NLayer: 2, NHead: 4, NHeadKV: 1, NFF: 768, Type: "q4_0"},
	{Arch: "llama", NEmbd: 512, NLayer: 1, NHead: 8, NHeadKV: 1, NFF: 512, Type: "f16"},
	{Arch: "qwen2", NEmbd: 384, NLayer: 2, NHead: 6, NHeadKV: 2, NFF: 512, Type: "q8_0"},
	{Arch: "qwen3", NEmbd: 192, NLayer: 2, NHead: 4, NHeadKV: 2, HeadDim: 128, NFF: 384, Type: "q8_0"},
	// gemma2 with head_dim 256, window 4 on layers 0 and 2 and soft-caps
	// that bite; smollm3 with no RoPE on layer 3.
	{Arch: "gemma2", NEmbd: 256, NLayer: 4, NHead: 4, NHeadKV: 2, HeadDim: 256, NFF: 512, Window: 4, AttnSoftcap: 1, FinalSoftcap: 8, Type: "q8_0"},
	{Arch: "smollm3", NEmbd: 256, NLayer: 4, NHead: 4, NHeadKV: 1, NFF: 512, Type: "q4_k_m"},
	// phi3 (fused attn_qkv and gate/up) with partial rotary 32 of 64 and
	// LongRoPE from an original context of 8: llama.cpp's context (512),
	// ours (64) and the 16 tokens all exceed it, so everyone takes the
	// long factors, with the attention factor sqrt(1 + ln 32 / ln 8).
	{Arch: "phi3", NEmbd: 256, NLayer: 2, NHead: 4, NHeadKV: 2, NFF: 384, RopeDim: 32, CtxOrig: 8, Type: "q8_0"},
}

// TestGeneratedShapesLiveAgainstLlamaCpp applies the fixtures' rule live:
// llama.cpp (node-llama-cpp, scripts/oracle) and the float64 reference
// (engine/reference) evaluate the same generated file; llama.cpp's
// deviation from the reference sets the tolerance, and the CPU backend's
// teacher-forced logits are judged against the reference with it.
func TestGeneratedShapesLiveAgainstLlamaCpp(t *testing.T) {
	_, c := startOracle(t)
	dir := t.TempDir()
	for i, shape := range oracleShapes {
		cfg := shapeConfig(shape, i, "oracle")
		name := fmt.Sprintf("%s_e%d_h%d_kv%d_%s", cfg.Arch, cfg.NEmbd, cfg.NHead, cfg.NHeadKV, cfg.Type)
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(dir, cfg.Name+".gguf")
			e, f := loadGenerated(t, path, cfg, engine.Options{NCtx: 64, NUbatch: 8})
			ids := []int32{1}
			for j := range 15 {
				ids = append(ids, int32(300+(j*997)%3500))
			}
			exactRows, err := reference.Logits(f, ids)
			if err != nil {
				t.Fatal(err)
			}
			m, err := c.Load(path, false)
			if err != nil {
				t.Fatal(err)
			}
			llamaRows, err := c.Logits(m, ids, true)
			if err != nil {
				t.Fatal(err)
			}
			ours, err := e.Eval(context.Background(), ids, engine.LogitsAll)
			if err != nil {
				t.Fatal(err)
			}
			exact := &refcheck.File{Prompts: []refcheck.Prompt{{IDs: ids}}}
			llama := &refcheck.File{Prompts: []refcheck.Prompt{{IDs: ids}}}
			for p := range ids {
				exact.Prompts[0].Positions = append(exact.Prompts[0].Positions, refcheck.Summarize64(exactRows[p], 20))
				llama.Prompts[0].Positions = append(llama.Prompts[0].Positions, refcheck.Summarize64(llamaRows[p], 20))
			}
			tol, err := refcheck.ComputeTolerance(llama, exact)
			if err != nil {
				t.Fatal(err)
			}
			rep := refcheck.Report{Tol: tol}
			rep.Check(0, exact.Prompts[0], ours)
			t.Logf("llama.cpp vs float64: max dev %.4f (tol %.4f); ours: max dev %.2e; top-1 %d/%d checked, %d near ties",
				tol.LlamaDev, tol.Logit, rep.MaxDev, rep.Top1Equal, rep.Top1Checked, rep.NearTies)
			for _, msg := range rep.Failures {
				t.Error(msg)
			}
			if tol.Missing > 0 {
				t.Errorf("llama.cpp's top 20 misses %d of the reference's top-5 ids: the reference and llama.cpp disagree", tol.Missing)
			}
			// The float64 reference must itself agree with llama.cpp as
			// closely as the fixtures' numpy reference does (worst fixture:
			// 0.65 on q4_K_M); otherwise a wrong reference would only
			// widen the tolerance.
			if tol.LlamaDev > 0.7 {
				t.Errorf("llama.cpp deviates from the float64 reference by %.3f", tol.LlamaDev)
			}
			if rep.Top1Checked == 0 {
				t.Error("no position had a clear top-1")
			}
		})
	}
}
