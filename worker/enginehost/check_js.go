//go:build js

package enginehost

import (
	"context"
	"errors"
	"fmt"

	"github.com/webgguf/webgguf/gguf"
	"github.com/webgguf/webgguf/opfs"
	"github.com/webgguf/webgguf/worker"
)

// Downloads into the worker's OPFS cache are checked before they are
// committed, so that a file this engine cannot load never enters the
// cache (where load() of the same URL would find it again and fail, even
// after the server is fixed).
func init() { opfs.SetModelCheck(checkSource) }

// checkSource is the download check: every shard parses as GGUF (header,
// tensor table, tensor data inside the file), the shards of a split model
// form one model (gguf.OpenSplit), and the model is one this engine runs
// (checkModel). The error names the shard that failed ("shard 2 of 3")
// and says the files were not cached.
func checkSource(ctx context.Context, src opfs.Source) error {
	n := src.Shards()
	parts := make([]gguf.Part, n)
	for i := range n {
		if err := ctx.Err(); err != nil {
			return err
		}
		f, err := gguf.Open(src.ReaderAt(i), src.Size(i))
		if err != nil {
			return notCached(classifyLoad(err), i, n)
		}
		_ = f.Close()
		parts[i] = gguf.Part{R: src.ReaderAt(i), Size: src.Size(i)}
	}
	f, err := gguf.OpenSplit(parts)
	if err != nil {
		return notCached(classifyLoad(err), -1, n)
	}
	return notCached(checkModel(f), -1, n)
}

// notCached restates a classified load error (bad-file, unsupported-model)
// of shard i (-1: of the model the shards make) as a refused download.
func notCached(err error, i, shards int) error {
	var we *worker.Error
	if err == nil || !errors.As(err, &we) {
		return err
	}
	msg := "the downloaded file was not cached: " + we.Msg
	switch {
	case shards > 1 && i >= 0:
		msg = fmt.Sprintf("the downloaded files were not cached: shard %d of %d: %s", i+1, shards, we.Msg)
	case shards > 1:
		msg = fmt.Sprintf("the downloaded files were not cached: the %d shards: %s", shards, we.Msg)
	}
	return worker.NewError(we.Kind, msg, we.Cause)
}
