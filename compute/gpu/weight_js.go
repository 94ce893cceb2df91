//go:build js

package gpu

import (
	"fmt"
	"syscall/js"

	"github.com/webgguf/webgguf/compute"
)

// JSStream delivers a weight's bytes as JS Uint8Arrays, in order from
// offset 0: the shape of an OPFS/Blob/URL reader in the worker.
type JSStream func(fn func(off int64, chunk js.Value) error) error

// LoadWeightJS is LoadWeight for bytes owned by JS: each chunk goes to
// queue.writeBuffer without passing through Go memory (only 1-D weights,
// a few KiB, are also copied to Go for their f32 expansion). Every chunk
// but the last must be a multiple of 4 bytes long (WebGPU's write
// granularity); a last chunk of odd length is padded through Go. A chunk
// straddling two parts of a weight split by rows (place.go) is written as
// subarray views of it, one per part, still without a copy.
func (b *Backend) LoadWeightJS(t *compute.Tensor, size int64, src JSStream) error {
	w, err := b.newWeight(t, size)
	if err != nil {
		return err
	}
	var got int64
	last := false
	err = src(func(off int64, chunk js.Value) error {
		n := int64(chunk.Get("byteLength").Int())
		switch {
		case off != got || n > size-got:
			return &Error{t.Name, fmt.Sprintf("chunk at %d+%d out of order (have %d of %d)", off, n, got, size)}
		case last:
			return &Error{t.Name, fmt.Sprintf("chunk at %d follows a chunk whose length is not a multiple of 4", off)}
		}
		if w.host != nil {
			js.CopyBytesToGo(w.host[off:off+n], chunk)
		}
		got += n
		if n%4 == 0 {
			return w.span(uint64(off), uint64(n), func(p *wpart, at, ln uint64) error {
				piece := chunk
				if at != 0 || ln != uint64(n) {
					piece = chunk.Call("subarray", at, at+ln) // a view, not a copy
				}
				return b.d.WriteBufferJS(p.buf, p.off+uint64(off)+at-w.partStart(p), piece)
			})
		}
		last = true
		tail := make([]byte, (n+3)&^3)
		js.CopyBytesToGo(tail, chunk)
		return w.write(b.d, uint64(off), tail)
	})
	if err == nil && got != size {
		err = &Error{t.Name, fmt.Sprintf("stream ended after %d of %d bytes", got, size)}
	}
	if err != nil {
		w.release()
		return err
	}
	return b.addWeight(w)
}
