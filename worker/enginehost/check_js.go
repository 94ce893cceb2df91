//go:build js

package enginehost

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/webgguf/webgguf/gguf"
	"github.com/webgguf/webgguf/model"
	"github.com/webgguf/webgguf/opfs"
	"github.com/webgguf/webgguf/worker"
)

// Downloads into the worker's OPFS cache are checked before they are
// committed, so that a file this engine cannot load never enters the
// cache (where load() of the same URL would find it again and fail, even
// after the server is fixed).
func init() { opfs.SetModelCheck(checkSource) }

// checkSource is the download check: every shard parses as GGUF (header,
// tensor table, tensor data inside the file), and the model is one this
// engine runs (checkModel; of a split model, the architecture of its first
// shard, since split models do not load yet). The error says the file was
// not cached.
func checkSource(ctx context.Context, src opfs.Source) error {
	for i := range src.Shards() {
		if err := ctx.Err(); err != nil {
			return err
		}
		f, err := gguf.Open(src.ReaderAt(i), src.Size(i))
		if err != nil {
			return notCached(classifyLoad(err), i, src.Shards())
		}
		switch {
		case src.Shards() == 1:
			err = checkModel(f)
		case i == 0 && !slices.Contains(model.Architectures(), f.Arch()):
			err = classifyLoad(&model.UnknownArchError{Arch: f.Arch()})
		}
		_ = f.Close()
		if err != nil {
			return notCached(err, i, src.Shards())
		}
	}
	return nil
}

// notCached restates a classified load error (bad-file, unsupported-model)
// of shard i as a refused download.
func notCached(err error, i, shards int) error {
	var we *worker.Error
	if !errors.As(err, &we) {
		return err
	}
	msg := "the downloaded file was not cached: " + we.Msg
	if shards > 1 {
		msg = fmt.Sprintf("the downloaded files were not cached: shard %d of %d: %s", i+1, shards, we.Msg)
	}
	return worker.NewError(we.Kind, msg, we.Cause)
}
