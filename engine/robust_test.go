package engine_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/webgguf/webgguf/engine"
	"github.com/webgguf/webgguf/gguf"
	"github.com/webgguf/webgguf/model"
	"github.com/webgguf/webgguf/model/modeltest"
)

// TestLoadSurvivesEveryMutation drops every tensor and key of generated
// models of each architecture, and sets every numeric key to 0, 1, a huge
// value and a string: Load must either succeed (optional tensors, keys
// with defaults) and then evaluate, or fail with a typed error. A panic
// fails the test by itself.
func TestLoadSurvivesEveryMutation(t *testing.T) {
	for _, arch := range []string{"llama", "qwen2", "qwen3"} {
		base := modeltest.Spec{Arch: arch, NEmbd: 64, NLayer: 1, NFF: 64, NVocab: 40, NHead: 2, NHeadKV: 1, HeadDim: 32, Type: gguf.TypeQ8_0, Untied: true, Seed: 5}
		f, err := modeltest.Open(base)
		if err != nil {
			t.Fatal(err)
		}
		var specs []modeltest.Spec
		for _, ti := range f.Tensors {
			s := base
			s.Drop = []string{ti.Name}
			specs = append(specs, s)
		}
		for _, kv := range f.KV {
			s := base
			s.Drop = []string{kv.Key}
			specs = append(specs, s)
			if kv.Key == "general.architecture" {
				continue
			}
			for _, v := range []any{uint32(0), uint32(1), uint64(1) << 40, float32(-1), "x"} {
				s := base
				s.Set = []gguf.KV{{Key: kv.Key, Value: gguf.ValueOf(v)}}
				specs = append(specs, s)
			}
		}
		for _, s := range specs {
			what := fmt.Sprintf("%s drop %v set %v", arch, s.Drop, s.Set)
			f, err := modeltest.Open(s)
			if err != nil {
				t.Fatalf("%s: generating: %v", what, err)
			}
			e, err := engine.Load(context.Background(), f, engine.Options{NCtx: 16, MemoryLimit: 64 << 20})
			if err != nil {
				if !typed(err) {
					t.Errorf("%s: untyped error %T: %v", what, err, err)
				}
				continue
			}
			if _, err := e.Eval(context.Background(), []int32{1, 2, 3}, engine.LogitsAll); err != nil {
				t.Errorf("%s: loaded but eval failed: %v", what, err)
			}
			e.Close()
		}
	}
}

func typed(err error) bool {
	var (
		a  *model.UnknownArchError
		k  *model.KeyError
		m  *model.MissingTensorError
		s  *model.ShapeError
		o  *engine.OptionError
		me *engine.MemoryError
	)
	return errors.As(err, &a) || errors.As(err, &k) || errors.As(err, &m) || errors.As(err, &s) || errors.As(err, &o) || errors.As(err, &me)
}
