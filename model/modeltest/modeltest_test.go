package modeltest_test

import (
	"errors"
	"testing"

	"github.com/webgguf/webgguf/gguf"
	"github.com/webgguf/webgguf/model"
	"github.com/webgguf/webgguf/model/modeltest"
)

// Every architecture of package model, tied and untied, generates a file
// that model.Load binds: the tensor list is model.Describe's.
func TestEveryArchitectureLoads(t *testing.T) {
	for _, arch := range model.Architectures() {
		for _, untied := range []bool{false, true} {
			s := modeltest.Spec{Arch: arch, NEmbd: 64, NLayer: 7, NFF: 96, NVocab: 50, NHead: 4, NHeadKV: 2, HeadDim: 32,
				Type: gguf.TypeQ8_0, Untied: untied, Window: 5, Seed: 1}
			f, err := modeltest.Open(s)
			if err != nil {
				t.Fatalf("%s: %v", arch, err)
			}
			m, err := model.Load(f)
			if err != nil {
				t.Fatalf("%s untied=%v: %v", arch, untied, err)
			}
			c := m.Config()
			var with []string
			if untied {
				with = append(with, "output.weight")
			}
			d, _ := model.Describe(c, with...)
			// The views of one fused tensor (phi3) are one tensor of
			// the file.
			bound, fused := 0, map[string]bool{}
			for _, w := range m.Weights() {
				if w.View == nil || !fused[w.View.Source] {
					bound++
				}
				if w.View != nil {
					fused[w.View.Source] = true
				}
			}
			if len(d) != bound || len(f.Tensors) != len(d) {
				t.Errorf("%s untied=%v: %d tensors written, %d described, %d bound", arch, untied, len(f.Tensors), len(d), bound)
			}
			if arch == "gemma3" {
				for il, l := range c.Layers {
					if want := map[bool]int{true: 5, false: 0}[il%6 < 5]; l.Window != want {
						t.Errorf("gemma3 layer %d: window %d, want %d", il, l.Window, want)
					}
				}
			}
		}
	}
}

// Spec.RopeFreqs writes llama's rope_freqs.weight; Drop leaves a tensor
// out and Load names it.
func TestRopeFreqsAndDrop(t *testing.T) {
	s := modeltest.Spec{Arch: "llama", NEmbd: 64, NLayer: 1, NFF: 64, NVocab: 20, NHead: 2, NHeadKV: 1, HeadDim: 32, NRot: 16,
		Type: gguf.TypeF32, RopeFreqs: true}
	f, err := modeltest.Open(s)
	if err != nil {
		t.Fatal(err)
	}
	if ti, ok := f.Tensor("rope_freqs.weight"); !ok || ti.Ne[0] != 8 {
		t.Errorf("rope_freqs.weight: %v", ti)
	}
	s.Drop = []string{"blk.0.post_ffw_norm.weight"}
	s.Arch = "gemma3"
	f, err = modeltest.Open(s)
	if err != nil {
		t.Fatal(err)
	}
	var missing *model.MissingTensorError
	if _, err := model.Load(f); !errors.As(err, &missing) || missing.Name != "blk.0.post_ffw_norm.weight" {
		t.Errorf("gemma3 without a post norm: %v", err)
	}
}
