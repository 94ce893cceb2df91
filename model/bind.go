package model

import (
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/webgguf/webgguf/compute"
	"github.com/webgguf/webgguf/gguf"
)

var tensorType = reflect.TypeFor[*compute.Tensor]()

// binder resolves struct tags to compute weight tensors. One *Tensor per
// GGUF name, so a tied output shares the embedding's storage. Without a
// file (Describe) it makes a shapeless tensor for every required name and
// for the optional ones listed in with. A tag that names a part of one of
// fusions binds a view of the fused tensor's rows (fusion.go).
type binder struct {
	f      *gguf.File
	cfg    *Config
	nLayer int
	// fusions are the architecture's fused tensors; fused holds those
	// bound so far by GGUF name (nil: an optional one the file lacks),
	// describing the ones Describe shapes after the shapes method.
	fusions    []Fusion
	fused      map[string]*fused
	describing []*fused
	byName     map[string]*compute.Tensor
	order      []*compute.Tensor
	with       map[string]bool
	// optional holds, describing, the optional tensors made so far; the
	// architecture's shapes method removes those it needs.
	optional map[*compute.Tensor]bool
}

// bind fills the *compute.Tensor fields (and `blk` slices) of the struct
// that v points to. Untagged struct fields (the shared blocks:
// SelfAttention, FFN) are bound with the same prefix.
func (b *binder) bind(v reflect.Value, prefix string) error {
	st := v.Type()
	for i := range st.NumField() {
		sf := st.Field(i)
		tag, ok := sf.Tag.Lookup("gguf")
		if !ok {
			if sf.Type.Kind() == reflect.Struct && sf.IsExported() {
				if err := b.bind(v.Field(i), prefix); err != nil {
					return err
				}
			}
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		fv := v.Field(i)
		switch {
		case sf.Type == tensorType:
			t, err := b.tensor(prefix, name, opts)
			if err != nil {
				return err
			}
			fv.Set(reflect.ValueOf(t))
		case sf.Type.Kind() == reflect.Slice && sf.Type.Elem().Kind() == reflect.Struct:
			fv.Set(reflect.MakeSlice(sf.Type, b.nLayer, b.nLayer))
			for l := range b.nLayer {
				if err := b.bind(fv.Index(l), fmt.Sprintf("%s%s.%d.", prefix, name, l)); err != nil {
					return err
				}
			}
		default:
			return fmt.Errorf("model: field %s has a gguf tag but type %s", sf.Name, sf.Type)
		}
	}
	return nil
}

func (b *binder) tensor(prefix, name, opts string) (*compute.Tensor, error) {
	optional, alt := false, ""
	for _, o := range strings.Split(opts, ",") {
		switch {
		case o == "optional":
			optional = true
		case strings.HasPrefix(o, "alt="):
			alt = o[len("alt="):]
		}
	}
	if fu := b.fusion(name); fu != nil {
		ft, err := b.fuse(prefix, fu)
		if err != nil {
			return nil, err
		}
		if ft != nil {
			return ft.parts[slices.Index(fu.Parts, name)], nil
		}
		// An optional fusion that the file lacks: the part is a tensor.
	}
	full := fullName(prefix, name)
	if b.f == nil { // Describe
		if alt != "" && !b.with[full] {
			return b.lookup(fullName(prefix, alt))
		}
		t, err := b.lookup(full)
		if optional && !b.with[full] {
			b.optional[t] = true
		}
		return t, err
	}
	t, err := b.lookup(full)
	if err == nil || alt == "" {
		if _, missing := err.(*MissingTensorError); missing && optional {
			return nil, nil
		}
		return t, err
	}
	return b.lookup(fullName(prefix, alt))
}

func fullName(prefix, name string) string {
	if strings.Contains(name, ".") {
		return prefix + name
	}
	return prefix + name + ".weight"
}

func (b *binder) lookup(name string) (*compute.Tensor, error) {
	if t, ok := b.byName[name]; ok {
		return t, nil
	}
	if b.f == nil {
		t := compute.NewWeight(name, gguf.TypeF32, 0, 0)
		b.byName[name] = t
		b.order = append(b.order, t)
		return t, nil
	}
	ti, ok := b.f.Tensor(name)
	if !ok {
		return nil, &MissingTensorError{Name: name}
	}
	t, err := weightOf(ti)
	if err != nil {
		return nil, err
	}
	b.byName[name] = t
	b.order = append(b.order, t)
	return t, nil
}

// weightOf is the weight tensor of a file's 1-D or 2-D tensor ti.
func weightOf(ti *gguf.TensorInfo) (*compute.Tensor, error) {
	ne := []int{1, 1}
	for d, n := range ti.Ne {
		switch {
		case d < 2 && n >= 1 && n <= 1<<31:
			ne[d] = int(n)
		case d >= 2 && n == 1:
		default:
			return nil, &ShapeError{Name: ti.Name, Got: ti.Ne, Want: nil}
		}
	}
	return compute.NewWeight(ti.Name, ti.Type, ne[0], ne[1]), nil
}

// shapes checks bound tensors against the shapes an architecture declares
// or, describing (Describe), gives them those shapes. The first error
// sticks.
type shapes struct {
	describe bool
	optional map[*compute.Tensor]bool // describing: see binder.optional
	err      error
}

// want declares t's shape [ne0, ne1]; nil tensors (absent optional ones)
// pass.
func (s *shapes) want(t *compute.Tensor, ne0, ne1 int) {
	switch {
	case t == nil || s.err != nil:
	case s.describe && t.Ne[0] == 0:
		t.Ne = [3]int{ne0, ne1, 1}
	case t.Ne[0] != ne0 || t.Ne[1] != ne1:
		s.err = &ShapeError{Name: t.Name, Got: []uint64{uint64(t.Ne[0]), uint64(t.Ne[1])}, Want: []int{ne0, ne1}}
	}
}

// need reports a required tensor that an optional tag left nil; name
// is its GGUF name.
func (s *shapes) need(t *compute.Tensor, name string) {
	if s.describe {
		delete(s.optional, t)
		return
	}
	if t == nil && s.err == nil {
		s.err = &MissingTensorError{Name: name}
	}
}
