package model_test

import (
	"bytes"
	"errors"
	"fmt"
	"testing"

	"github.com/webgguf/webgguf/compute"
	"github.com/webgguf/webgguf/gguf"
	"github.com/webgguf/webgguf/model"
	"github.com/webgguf/webgguf/model/modeltest"
)

// fusedFiles returns a llama model of spec s and the same model with q, k,
// v fused into attn_qkv and gate, up into ffn_up.
func fusedFiles(t *testing.T, s modeltest.Spec) (plain, fused *gguf.File) {
	t.Helper()
	b, err := modeltest.Bytes(s)
	if err != nil {
		t.Fatal(err)
	}
	fb, err := modeltest.Fuse(b, model.FusedQKV(), model.FusedGateUp())
	if err != nil {
		t.Fatal(err)
	}
	plain, err = gguf.Open(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	fused, err = gguf.Open(bytes.NewReader(fb), int64(len(fb)))
	if err != nil {
		t.Fatal(err)
	}
	return plain, fused
}

// TestFusedTensorsBindAsViews loads a fused llama through views: every
// part is a weight of its own shape in binding order, q, k, v, gate and up
// are views of the fused tensors' rows, and the bytes WeightInfo points
// to are exactly the unfused file's tensor bytes.
func TestFusedTensorsBindAsViews(t *testing.T) {
	for _, typ := range []gguf.GGMLType{gguf.TypeF32, gguf.TypeQ8_0, gguf.TypeQ4_0, gguf.TypeQ4_K} {
		t.Run(typ.String(), func(t *testing.T) {
			s := base("llama")
			if typ == gguf.TypeQ4_K {
				s.NEmbd, s.NFF, s.NHead, s.NHeadKV, s.HeadDim = 256, 256, 4, 2, 64
			}
			s.Type = typ
			plain, fused := fusedFiles(t, s)
			if _, ok := fused.Tensor("blk.0.attn_q.weight"); ok {
				t.Fatal("fused file still has attn_q")
			}
			mp, err := model.Load(plain)
			if err != nil {
				t.Fatal(err)
			}
			defer model.SetFusions("llama", model.FusedQKV(), model.FusedGateUp())()
			mf, err := model.Load(fused)
			if err != nil {
				t.Fatal(err)
			}
			wp, wf := mp.Weights(), mf.Weights()
			if len(wp) != len(wf) {
				t.Fatalf("%d weights fused, %d plain", len(wf), len(wp))
			}
			c := mf.Config()
			q, kv := c.NHead*c.HeadDim, c.NHeadKV*c.HeadDim
			wantRow := map[string]int{"attn_q": 0, "attn_k": q, "attn_v": q + kv, "ffn_gate": 0, "ffn_up": c.NFF}
			views := 0
			for i, w := range wf {
				p := wp[i]
				if w.Name != p.Name || w.Type != p.Type || w.Ne != p.Ne {
					t.Fatalf("weight %d: fused %v, plain %v", i, w, p)
				}
				var l int
				var tag string
				if n, _ := fmt.Sscanf(w.Name, "blk.%d.", &l); n == 1 {
					tag = w.Name[len(fmt.Sprintf("blk.%d.", l)) : len(w.Name)-len(".weight")]
				}
				row, isView := wantRow[tag]
				switch {
				case isView != (w.View != nil):
					t.Fatalf("%v: view %+v", w, w.View)
				case isView:
					views++
					src := "attn_qkv"
					if tag == "ffn_gate" || tag == "ffn_up" {
						src = "ffn_up"
					}
					if w.View.Source != fmt.Sprintf("blk.%d.%s.weight", l, src) || w.View.Row != row {
						t.Errorf("%s: view %+v, want rows of %s from %d", w.Name, w.View, src, row)
					}
				}
				tf, err := model.WeightInfo(fused, w)
				if err != nil {
					t.Fatal(err)
				}
				tp, err := model.WeightInfo(plain, p)
				if err != nil {
					t.Fatal(err)
				}
				if tf.Size != tp.Size || tf.Type != tp.Type || fmt.Sprint(tf.Ne) != fmt.Sprint(tp.Ne) {
					t.Errorf("%s: info %+v, plain %+v", w.Name, tf, tp)
				}
				bf, err := fused.ReadTensor(tf)
				if err != nil {
					t.Fatal(err)
				}
				bp, err := plain.ReadTensor(tp)
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(bf, bp) {
					t.Errorf("%s: the view's bytes differ from the unfused tensor's", w.Name)
				}
			}
			if views != 5*c.NLayer {
				t.Errorf("%d views, want %d", views, 5*c.NLayer)
			}
		})
	}
}

// TestDescribeListsFusedTensors checks Describe under fusions: each fused
// tensor once, with its full shape, where its first part would be, and
// none of its parts: the list a generator writes, which is the fused
// file's own list.
func TestDescribeListsFusedTensors(t *testing.T) {
	s := base("llama")
	s.NHeadKV = 1
	_, fused := fusedFiles(t, s)
	restore := model.SetFusions("llama", model.FusedQKV(), model.FusedGateUp())
	defer restore()
	m, err := model.Load(fused)
	if err != nil {
		t.Fatal(err)
	}
	d, err := model.Describe(m.Config())
	if err != nil {
		t.Fatal(err)
	}
	if len(d) != len(fused.Tensors) {
		t.Fatalf("Describe lists %d tensors, the fused file has %d", len(d), len(fused.Tensors))
	}
	for i, ti := range fused.Tensors {
		ne := [2]int{int(ti.Ne[0]), 1}
		if len(ti.Ne) > 1 {
			ne[1] = int(ti.Ne[1])
		}
		if d[i].Name != ti.Name || d[i].Ne != ne {
			t.Errorf("tensor %d: Describe %v, file %s %v", i, d[i], ti.Name, ti.Ne)
		}
	}
	want := map[string][2]int{"blk.1.attn_qkv.weight": {64, 64 + 2*16}, "blk.1.ffn_up.weight": {64, 2 * 96}}
	for _, sp := range d {
		if w, ok := want[sp.Name]; ok && sp.Ne != w {
			t.Errorf("%s: %v, want %v", sp.Name, sp.Ne, w)
		}
		delete(want, sp.Name)
	}
	if len(want) != 0 {
		t.Errorf("Describe lacks %v", want)
	}
	restore()
	if d, _ := model.Describe(m.Config()); len(d) != 2+9*s.NLayer {
		t.Errorf("after restore, Describe lists %d tensors, want llama's %d", len(d), 2+9*s.NLayer)
	}
}

// TestFusionErrors checks the typed errors of fused files and fusions:
// a fused tensor of the wrong row count or absent, a view that does not
// fit the file WeightInfo is given, and fusions declared wrongly. An
// optional fusion whose tensor is absent binds the parts as they are.
func TestFusionErrors(t *testing.T) {
	s := base("llama")
	plain, fused := fusedFiles(t, s)
	s.Drop = []string{"blk.0.ffn_up.weight"}
	b, _ := modeltest.Bytes(s)
	fb, err := modeltest.Fuse(b, model.FusedQKV())
	if err != nil {
		t.Fatal(err)
	}
	noUp, _ := gguf.Open(bytes.NewReader(fb), int64(len(fb)))
	restore := model.SetFusions("llama", model.FusedQKV(), model.FusedGateUp())
	var se *model.ShapeError
	if _, err := model.Load(plain); !errors.As(err, &se) || se.Name != "blk.0.ffn_up.weight" {
		t.Errorf("unfused ffn_up read as gate+up: %v, want a ShapeError for blk.0.ffn_up.weight", err)
	}
	var me *model.MissingTensorError
	if _, err := model.Load(noUp); !errors.As(err, &me) || me.Name != "blk.0.ffn_up.weight" {
		t.Errorf("no ffn_up: %v, want a MissingTensorError", err)
	}
	m, err := model.Load(fused)
	if err != nil {
		t.Fatal(err)
	}
	restore()

	// WeightInfo of a view against a file whose tensor it does not fit.
	var v *compute.Tensor
	for _, w := range m.Weights() {
		if w.View != nil && w.View.Row > 0 {
			v = w
			break
		}
	}
	other, _ := modeltest.Open(base("llama"))
	var ve *compute.ViewError
	if _, err := model.WeightInfo(other, v); !errors.As(err, &me) || me.Name != v.View.Source {
		t.Errorf("WeightInfo on a file without %s: %v", v.View.Source, err)
	}
	small := *v
	small.Ne[0] = 32
	if _, err := model.WeightInfo(fused, &small); !errors.As(err, &ve) {
		t.Errorf("WeightInfo of a view wider than its source's rows: %v, want a ViewError", err)
	}

	// Only q, k, v fused, optionally: the unfused file binds as it is.
	restore = model.SetFusions("llama", model.FusedQKV())
	if m, err := model.Load(plain); err != nil || m.Weights()[1].View != nil {
		t.Errorf("optional attn_qkv absent: %v", err)
	}
	restore()

	bad := model.FusedGateUp()
	bad.Optional = true
	restore = model.SetFusions("llama", model.FusedQKV(), bad)
	var fe *model.FusionError
	if _, err := model.Load(fused); !errors.As(err, &fe) {
		t.Errorf("optional fusion named like a part: %v, want a FusionError", err)
	}
	restore()
	bad = model.FusedQKV()
	bad.Rows = func(c *model.Config) []int { return []int{c.NEmbd} }
	restore = model.SetFusions("llama", bad)
	if _, err := model.Describe(m.Config()); !errors.As(err, &fe) {
		t.Errorf("one row count for three parts: %v, want a FusionError", err)
	}
	restore()
	bad = model.FusedQKV()
	bad.Rows = func(c *model.Config) []int { return []int{c.NHead * c.HeadDim, c.NHeadKV * c.HeadDim, 8} }
	restore = model.SetFusions("llama", bad)
	if _, err := model.Describe(m.Config()); !errors.As(err, &se) || se.Name != "blk.0.attn_v.weight" {
		t.Errorf("row counts that the shapes contradict: %v, want a ShapeError for attn_v", err)
	}
	if _, err := model.Load(fused); !errors.As(err, &se) || se.Name != "blk.0.attn_qkv.weight" {
		t.Errorf("row counts that the file contradicts: %v, want a ShapeError for attn_qkv", err)
	}
	restore()
}
