package model

import (
	"fmt"
	"slices"
	"sync"

	"github.com/webgguf/webgguf/compute"
	"github.com/webgguf/webgguf/gguf"
)

// Fusion declares a GGUF tensor of each layer that holds several of an
// architecture's weights stacked by rows, as some converters write them
// (Phi-3: attn_qkv, and ffn_up holding gate and up). The binder gives each
// part's tag a view of its rows (compute.NewWeightView), so the shared
// blocks, the backends and their fusions see separate weights, and each
// view loads only its own bytes of the file. Describe lists the fused
// tensor once, with its full shape, where its first part is bound.
type Fusion struct {
	// Name is the fused tensor's tag name, as a gguf struct tag names
	// one: "attn_qkv" is blk.N.attn_qkv.weight.
	Name string
	// Parts are the tag names of the weights it holds, in row order. A
	// part's tag options (optional, alt) do not apply to a fused file.
	Parts []string
	// Rows returns each part's row count for a config.
	Rows func(c *Config) []int
	// Optional lets a file hold the parts as tensors of their own
	// instead: the fusion applies to a layer whose file has the fused
	// tensor. Name must then differ from every part's. Describe writes
	// the fused form.
	Optional bool
}

// FusedQKV is attn_qkv: attn_q's rows (n_head·head_dim), then attn_k's and
// attn_v's (n_head_kv·head_dim each), as llama.cpp's phi3 graph views
// them. Optional (llama.cpp's phi3 loader marks attn_qkv not required): a
// file may hold q, k and v as tensors of their own.
func FusedQKV() Fusion {
	return Fusion{Name: "attn_qkv", Parts: []string{"attn_q", "attn_k", "attn_v"}, Optional: true,
		Rows: func(c *Config) []int {
			q, kv := c.NHead*c.HeadDim, c.NHeadKV*c.HeadDim
			return []int{q, kv, kv}
		}}
}

// FusedGateUp is ffn_up holding ffn_gate's rows then ffn_up's (n_ff each):
// llama.cpp's SwiGLU on a fused up projection gates with the first half.
func FusedGateUp() Fusion {
	return Fusion{Name: "ffn_up", Parts: []string{"ffn_gate", "ffn_up"},
		Rows: func(c *Config) []int { return []int{c.NFF, c.NFF} }}
}

// fusionsMu guards fusionOverride, which SetFusions writes while tests
// may be loading models.
var (
	fusionsMu      sync.RWMutex
	fusionOverride = map[string][]Fusion{}
)

// SetFusions makes Load and Describe treat fs as architecture arch's
// fused tensors, in place of those it registered, until restore is
// called. It is a test hook: a test fuses an existing model's tensors
// (modeltest.Fuse) and loads the result through views, to compare it bit
// for bit with the unfused file without a real architecture that fuses.
// It changes what every Load of arch accepts meanwhile.
func SetFusions(arch string, fs ...Fusion) (restore func()) {
	fusionsMu.Lock()
	old, had := fusionOverride[arch]
	fusionOverride[arch] = slices.Clone(fs)
	fusionsMu.Unlock()
	return func() {
		fusionsMu.Lock()
		defer fusionsMu.Unlock()
		if had {
			fusionOverride[arch] = old
		} else {
			delete(fusionOverride, arch)
		}
	}
}

// fusionsOf returns architecture a's fusions: SetFusions' or registered.
func fusionsOf(name string, a arch) []Fusion {
	fusionsMu.RLock()
	defer fusionsMu.RUnlock()
	if fs, ok := fusionOverride[name]; ok {
		return fs
	}
	return a.fused
}

// fused is one fused tensor of a binding: the tensor (describing: the
// one listed, shaped after the parts; loading: the file's, not a weight
// of the model) and the parts bound from it, in row order.
type fused struct {
	t     *compute.Tensor
	parts []*compute.Tensor
	rows  []int
}

// fusion returns the fusion that has a part named name, or nil.
func (b *binder) fusion(name string) *Fusion {
	for i := range b.fusions {
		if slices.Contains(b.fusions[i].Parts, name) {
			return &b.fusions[i]
		}
	}
	return nil
}

// fuse returns the fused tensor fu under prefix, binding all its parts the
// first time: views of the file's tensor, or describing, shapeless parts
// that the shapes method shapes (describeFused then shapes the fused
// tensor). It returns nil for an optional fusion whose tensor the file
// does not have.
func (b *binder) fuse(prefix string, fu *Fusion) (*fused, error) {
	full := fullName(prefix, fu.Name)
	if ft, ok := b.fused[full]; ok {
		return ft, nil
	}
	if fu.Optional && slices.Contains(fu.Parts, fu.Name) {
		return nil, &FusionError{Name: full, Reason: "optional, but named like one of its parts"}
	}
	if fu.Rows == nil {
		return nil, &FusionError{Name: full, Reason: "no row counts"}
	}
	rows := fu.Rows(b.cfg)
	if len(rows) != len(fu.Parts) {
		return nil, &FusionError{Name: full, Reason: "one row count per part needed"}
	}
	ft := &fused{rows: rows}
	if b.f == nil {
		ft.t = compute.NewWeight(full, gguf.TypeF32, 0, 0)
		b.order = append(b.order, ft.t)
		for _, p := range fu.Parts {
			ft.parts = append(ft.parts, compute.NewWeight(fullName(prefix, p), gguf.TypeF32, 0, 0))
		}
		b.describing = append(b.describing, ft)
		b.fused[full] = ft
		return ft, nil
	}
	ti, ok := b.f.Tensor(full)
	if !ok {
		if fu.Optional {
			b.fused[full] = nil
			return nil, nil
		}
		return nil, &MissingTensorError{Name: full}
	}
	t, err := weightOf(ti)
	if err != nil {
		return nil, err
	}
	total := 0
	for _, r := range rows {
		total += r
	}
	if t.Ne[1] != total {
		return nil, &ShapeError{Name: full, Got: ti.Ne, Want: []int{t.Ne[0], total}}
	}
	ft.t = t
	row := 0
	for i, p := range fu.Parts {
		v, err := compute.NewWeightView(t, fullName(prefix, p), row, rows[i])
		if err != nil {
			return nil, err
		}
		ft.parts = append(ft.parts, v)
		b.order = append(b.order, v)
		row += rows[i]
	}
	b.fused[full] = ft
	return ft, nil
}

// describeFused gives each fused tensor of a Describe its shape, once the
// shapes method has shaped the parts: their common row length, and the
// sum of their rows, which must be what the fusion's Rows said.
func (b *binder) describeFused() error {
	for _, ft := range b.describing {
		ne0, total := ft.parts[0].Ne[0], 0
		for i, p := range ft.parts {
			if p.Ne[0] == 0 || p.Ne[0] != ne0 || p.Ne[1] != ft.rows[i] {
				return &ShapeError{Name: p.Name, Got: []uint64{uint64(p.Ne[0]), uint64(p.Ne[1])}, Want: []int{ne0, ft.rows[i]}}
			}
			total += ft.rows[i]
		}
		ft.t.Ne = [3]int{ne0, total, 1}
	}
	return nil
}

// WeightInfo returns where weight w of a model loaded from f lies in f:
// f's tensor w.Name, or for a view (w.View) a TensorInfo of the view's
// rows of its source tensor, offset, size and shape narrowed to them. A
// loader streams it like any tensor (gguf.File.StreamTensor; in the
// browser opfs.TensorStream, which reads ti.Offset and ti.Size), so a
// view's bytes, and only they, go to the backend.
func WeightInfo(f *gguf.File, w *compute.Tensor) (*gguf.TensorInfo, error) {
	if w.View == nil {
		ti, ok := f.Tensor(w.Name)
		if !ok {
			return nil, &MissingTensorError{Name: w.Name}
		}
		return ti, nil
	}
	src, ok := f.Tensor(w.View.Source)
	if !ok {
		return nil, &MissingTensorError{Name: w.View.Source}
	}
	off, n, ok := w.ByteRange()
	if !ok || src.Type != w.Type || len(src.Ne) == 0 || src.Ne[0] != uint64(w.Ne[0]) || off < 0 || n > src.Size-off {
		return nil, &compute.ViewError{Name: w.Name, Source: src.Name, Row: w.View.Row, Rows: w.Ne[1],
			Reason: fmt.Sprintf("does not fit the file's tensor (%s %v)", src.Type, src.Ne)}
	}
	return &gguf.TensorInfo{Name: src.Name, Type: src.Type, Ne: []uint64{uint64(w.Ne[0]), uint64(w.Ne[1])},
		Offset: src.Offset + uint64(off), Size: n, Split: src.Split}, nil
}
