package gpu

import (
	"context"
	"fmt"

	"github.com/webgguf/webgguf/compute"
	"github.com/webgguf/webgguf/shaders"
	"github.com/webgguf/webgguf/webgpu"
)

// Weights of the formats with a packed layout (shaders.Pack: quants in
// 16-byte-aligned planes, so a warp's loads are contiguous) are rewritten
// into it on the GPU, in place, when a program is compiled: the
// bytes arrive in file format from either load path (Go chunks natively,
// JS chunks in the browser, which never pass through Go memory), and a
// packed chunk has the size and place of its ggml chunk, so the placement
// and row splits do not change. Every kernel reading such a weight is built
// with Key.Packed; ReadWeight unpacks.

// packs reports whether weight t is stored packed once a program is compiled.
func packs(t *compute.Tensor) bool { return shaders.Packable(t.Type, t.Ne[0]) }

// readsPacked reports whether any of binds is a part of a packed weight,
// and whether its rows are ragged: the Key.Packed and Key.Ragged of the
// kernel reading them. The weights of one kernel share K, so a format with
// a packed layout is packed in all of them alike, which is what one
// Key.Packed can say.
func (c *compiler) readsPacked(binds []bref) (packed, ragged bool) {
	c.b.mu.Lock()
	defer c.b.mu.Unlock()
	for _, r := range binds {
		if r.buf == nil {
			continue
		}
		for t, w := range c.b.weights {
			if !w.packed {
				continue
			}
			for _, p := range w.parts {
				if p.buf == r.buf && p.off == r.off {
					packed = true
					ragged = ragged || shaders.Ragged(t.Type, t.Ne[0])
				}
			}
		}
	}
	return packed, ragged
}

// packAll rewrites every loaded weight that has a packed layout and is not
// packed yet, in one submit. Compile calls it before lowering.
func (b *Backend) packAll() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	var todo []*weight
	for t, w := range b.weights {
		if packs(t) && !w.packed {
			todo = append(todo, w)
		}
	}
	if len(todo) == 0 {
		return nil
	}
	tape := b.d.NewTape()
	var tmp []*webgpu.Buffer
	defer func() {
		for _, u := range tmp {
			u.Destroy()
		}
	}()
	for _, w := range todo {
		t := w.t
		rk, _, ok := shaders.RepackFor(t.Type, 1, t.Ne[0])
		if !ok {
			return &Error{t.Name, "no packed layout"}
		}
		k, err := shaders.Build(rk)
		if err != nil {
			return err
		}
		layout := make([]webgpu.BindingKind, len(k.Bindings))
		for i, bk := range k.Bindings {
			layout[i] = webgpu.BindingKind(bk)
		}
		pipe, err := b.d.CachedComputePipeline(k.Key.String(), k.Key.Op.String(), k.WGSL, k.Entry, layout)
		if err != nil {
			return err
		}
		for _, p := range w.parts {
			_, rp, ok := shaders.RepackFor(t.Type, p.rows, t.Ne[0])
			if !ok {
				return &Error{t.Name, fmt.Sprintf("part of %d rows has no packed layout", p.rows)}
			}
			chunks := int(rp.Chunks)
			pb := rp.Bytes()
			u, err := b.d.CreateBuffer("repack-params", uint64(len(pb)), webgpu.UsageUniform|webgpu.UsageCopyDst)
			if err != nil {
				return err
			}
			tmp = append(tmp, u)
			if err := b.d.WriteBuffer(u, 0, pb); err != nil {
				return err
			}
			bg, err := b.d.CreateBindGroup(pipe, []webgpu.Binding{{Buffer: u}, {Buffer: p.buf, Offset: p.off, Size: p.size}})
			if err != nil {
				return err
			}
			x, y, z := k.Dispatch(shaders.Shape{N: chunks})
			tape.Dispatch(pipe, bg, x, y, z)
		}
	}
	ctx := context.Background()
	if err := tape.Run(ctx); err != nil {
		return err
	}
	// Wait for the rewrite (a 4-byte read of a rewritten buffer) before the
	// parameter buffers are destroyed and any program reads the weights.
	if _, err := b.d.ReadBuffer(ctx, todo[0].parts[0].buf, 0, 4); err != nil {
		return err
	}
	for _, w := range todo {
		w.packed = true
	}
	return nil
}

// unpacked returns a weight's bytes as read back, in file format.
func unpacked(w *weight, b []byte) ([]byte, error) {
	if !w.packed {
		return b, nil
	}
	out, err := shaders.Unpack(w.t.Type, w.t.Ne[0], b)
	if err != nil {
		return nil, &Error{w.t.Name, err.Error()}
	}
	return out, nil
}
