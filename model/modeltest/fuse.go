package modeltest

import (
	"bytes"
	"fmt"

	"github.com/webgguf/webgguf/gguf"
	"github.com/webgguf/webgguf/model"
)

// Fuse returns the GGUF file b with each layer's tensors of every fusion's
// parts concatenated by rows, in the fusion's order, into the fused tensor
// (in the place of the first part; the parts are dropped): the file that a
// converter writing those fusions would make, from the very same weight
// bytes. A model loaded from it through views (model.SetFusions) must
// compute bit for bit what the model of b does. Metadata are kept as they
// are.
func Fuse(b []byte, fs ...model.Fusion) ([]byte, error) {
	f, err := gguf.Open(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		return nil, err
	}
	c, err := model.ReadConfig(f)
	if err != nil {
		return nil, err
	}
	var ts []gguf.TensorData
	at := map[string]int{}
	for i := range f.Tensors {
		ti := &f.Tensors[i]
		data, err := f.ReadTensor(ti)
		if err != nil {
			return nil, err
		}
		at[ti.Name] = len(ts)
		ts = append(ts, gguf.TensorData{Name: ti.Name, Type: ti.Type, Ne: ti.Ne, Data: data})
	}
	drop := map[int]bool{}
	for _, fu := range fs {
		for l := range c.NLayer {
			name := func(tag string) string { return fmt.Sprintf("blk.%d.%s.weight", l, tag) }
			first, ok := at[name(fu.Parts[0])]
			if !ok {
				return nil, fmt.Errorf("modeltest: fuse %s: no %s", name(fu.Name), name(fu.Parts[0]))
			}
			out := gguf.TensorData{Name: name(fu.Name), Type: ts[first].Type, Ne: []uint64{ts[first].Ne[0], 0}}
			for _, p := range fu.Parts {
				i, ok := at[name(p)]
				if !ok {
					return nil, fmt.Errorf("modeltest: fuse %s: no %s", out.Name, name(p))
				}
				t := ts[i]
				if t.Type != out.Type || len(t.Ne) != 2 || t.Ne[0] != out.Ne[0] {
					return nil, fmt.Errorf("modeltest: fuse %s: %s is %s %v, not rows of %s [%d]", out.Name, t.Name, t.Type, t.Ne, out.Type, out.Ne[0])
				}
				out.Data = append(out.Data, t.Data...)
				out.Ne[1] += t.Ne[1]
				drop[i] = i != first
			}
			ts[first] = out
		}
	}
	var kept []gguf.TensorData
	for i, t := range ts {
		if !drop[i] {
			kept = append(kept, t)
		}
	}
	var buf bytes.Buffer
	if err := gguf.Write(&buf, f.KV, kept, 0); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
