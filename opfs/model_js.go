//go:build js && webgguf_test

package opfs

import (
	"context"

	"github.com/webgguf/webgguf/gguf"
)

// OpenModel opens the cache entry key as one gguf.File read through OPFS
// sync access handles (shards joined with gguf.OpenSplit), for consumers
// that take a *gguf.File (engine.Load). The bytes they read land in Go
// memory; the GPU path without that copy is Load. close releases the
// handles once the consumer is done reading.
func (c *Cache) OpenModel(ctx context.Context, key string) (f *gguf.File, close func(), err error) {
	e, err := c.Get(ctx, key)
	if err != nil {
		return nil, nil, err
	}
	src, err := e.Source(ctx)
	if err != nil {
		return nil, nil, err
	}
	parts := make([]gguf.Part, src.Shards())
	for i := range parts {
		parts[i] = gguf.Part{R: src.ReaderAt(i), Size: src.Size(i)}
	}
	if f, err = gguf.OpenSplit(parts); err != nil {
		src.Close()
		return nil, nil, &Error{Kind: KindFormat, Op: "open", Key: key, Offset: -1, Err: err}
	}
	return f, src.Close, nil
}
