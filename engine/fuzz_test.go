package engine_test

import (
	"bytes"
	"context"
	"testing"

	"github.com/webgguf/webgguf/engine"
	"github.com/webgguf/webgguf/gguf"
	"github.com/webgguf/webgguf/model/modeltest"
)

// FuzzLoadEval feeds mutated GGUF files through gguf.Open, engine.Load (a
// 64 MiB memory limit) and one Eval: every outcome must be an error or a
// result, never a panic or a hang. `go test -fuzz FuzzLoadEval ./engine`
// explores; the seeds run in every `go test`.
func FuzzLoadEval(f *testing.F) {
	for i, arch := range []string{"llama", "qwen2", "qwen3"} {
		b, err := modeltest.Bytes(modeltest.Spec{Arch: arch, NEmbd: 32, NLayer: 1, NFF: 32, NVocab: 16, NHead: 2, NHeadKV: 1, HeadDim: 16,
			Type: []gguf.GGMLType{gguf.TypeQ8_0, gguf.TypeF16, gguf.TypeQ4_0}[i], Untied: i == 1, Seed: uint64(i + 1)})
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b, uint8(3))
	}
	f.Fuzz(func(t *testing.T, data []byte, n uint8) {
		file, err := gguf.Open(bytes.NewReader(data), int64(len(data)))
		if err != nil {
			return
		}
		e, err := engine.Load(context.Background(), file, engine.Options{NCtx: 8, NUbatch: 4, MemoryLimit: 64 << 20})
		if err != nil {
			return
		}
		defer e.Close()
		ids := make([]int32, int(n%8)+1)
		for i := range ids {
			ids[i] = int32(i*5) % int32(e.Config().NVocab)
		}
		logits, err := e.Eval(context.Background(), ids, engine.LogitsAll)
		if err == nil && len(logits) != len(ids) {
			t.Fatalf("%d rows of logits for %d tokens", len(logits), len(ids))
		}
	})
}
