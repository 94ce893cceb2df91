//go:build js

package opfs

import (
	"sync"
	"syscall/js"
)

// BlobMessage is the t of the plain message a page posts to the engine
// worker to hand it user-picked Files (structured clone keeps them
// file-backed, no bytes copied):
//
//	engine.worker.postMessage({ t: 'webgguf.blobs', id: 'pick-1', blobs: [file] })
//
// Post it after the engine is ready (earlier messages of this kind are
// dropped by the bootstrap), then load with OpfsLoadRequest{BlobID: id}.
// An empty blobs list forgets the id.
const BlobMessage = "webgguf.blobs"

var (
	blobMu     sync.Mutex
	blobs      = map[string][]js.Value{}
	listenOnce sync.Once
)

// maxPostedIDs bounds the ids kept, so a page cannot grow the map without end.
const maxPostedIDs = 64

// listenForBlobs adds a message listener beside the bootstrap's onmessage
// (which ignores plain messages other than init). It only stores values:
// nothing is awaited inside the callback.
func listenForBlobs() {
	listenOnce.Do(func() {
		fn := js.FuncOf(func(_ js.Value, args []js.Value) any {
			if len(args) == 0 {
				return nil
			}
			d := args[0].Get("data")
			if d.Type() != js.TypeObject || d.Get("t").Type() != js.TypeString || d.Get("t").String() != BlobMessage {
				return nil
			}
			id, list := d.Get("id"), d.Get("blobs")
			if id.Type() != js.TypeString || len(id.String()) > maxKeyLen || !js.Global().Get("Array").Call("isArray", list).Bool() {
				return nil
			}
			n := list.Length()
			if n > MaxShards {
				return nil
			}
			vs := make([]js.Value, 0, n)
			for i := range n {
				vs = append(vs, list.Index(i))
			}
			blobMu.Lock()
			defer blobMu.Unlock()
			if n == 0 {
				delete(blobs, id.String())
				return nil
			}
			if _, ok := blobs[id.String()]; !ok && len(blobs) >= maxPostedIDs {
				return nil
			}
			blobs[id.String()] = vs
			return nil
		})
		js.Global().Call("addEventListener", "message", fn)
	})
}

// PostedBlobs returns the Blobs the page posted under id (see BlobMessage).
func PostedBlobs(id string) ([]js.Value, bool) {
	blobMu.Lock()
	defer blobMu.Unlock()
	b, ok := blobs[id]
	return b, ok
}
