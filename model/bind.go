package model

import (
	"fmt"
	"reflect"
	"strings"

	"github.com/webgguf/webgguf/compute"
	"github.com/webgguf/webgguf/gguf"
)

var tensorType = reflect.TypeFor[*compute.Tensor]()

// binder resolves struct tags to compute weight tensors. One *Tensor per
// GGUF name, so a tied output shares the embedding's storage.
type binder struct {
	f      *gguf.File
	nLayer int
	byName map[string]*compute.Tensor
	order  []*compute.Tensor
}

// bind fills the *compute.Tensor fields (and `blk` slices) of the struct
// that v points to.
func (b *binder) bind(v reflect.Value, prefix string) error {
	st := v.Type()
	for i := range st.NumField() {
		sf := st.Field(i)
		if sf.Anonymous && sf.Type.Kind() == reflect.Struct {
			// An embedded struct (Llama{Decoder}) contributes its fields.
			if err := b.bind(v.Field(i), prefix); err != nil {
				return err
			}
			continue
		}
		tag, ok := sf.Tag.Lookup("gguf")
		if !ok {
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
	full := fullName(prefix, name)
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
	ti, ok := b.f.Tensor(name)
	if !ok {
		return nil, &MissingTensorError{Name: name}
	}
	ne := []int{1, 1}
	for d, n := range ti.Ne {
		switch {
		case d < 2 && n >= 1 && n <= 1<<31:
			ne[d] = int(n)
		case d >= 2 && n == 1:
		default:
			return nil, &ShapeError{Name: name, Got: ti.Ne, Want: nil}
		}
	}
	t := compute.NewWeight(name, ti.Type, ne[0], ne[1])
	b.byName[name] = t
	b.order = append(b.order, t)
	return t, nil
}

// want checks t's shape; nil tensors (absent optional ones) pass.
func want(t *compute.Tensor, ne0, ne1 int) error {
	if t == nil || (t.Ne[0] == ne0 && t.Ne[1] == ne1) {
		return nil
	}
	return &ShapeError{Name: t.Name, Got: []uint64{uint64(t.Ne[0]), uint64(t.Ne[1])}, Want: []int{ne0, ne1}}
}
