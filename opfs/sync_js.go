//go:build js

package opfs

import (
	"context"
	"fmt"
	"io"

	"github.com/hack-pad/safejs"
)

// syncFile is an OPFS FileSystemSyncAccessHandle: synchronous reads and
// writes at an offset, JS buffers in and out, so bytes need not pass
// through Go memory.
type syncFile struct {
	h       safejs.Value
	scratch safejs.Value // JS buffer for ReadAt, grown as needed
	// readAt is the {at} options object of every read, made once: a new
	// object per 1 MiB chunk would be a js.Value that only Go's collector
	// releases from wasm_exec.js's table (see Streamer).
	readAt safejs.Value
	closed bool
}

// openSync opens a sync access handle on fh; readOnly asks for Chromium's
// shared "read-only" mode (several readers at once), falling back to the
// default exclusive mode where the option is unknown.
func openSync(ctx context.Context, fh safejs.Value, readOnly bool) (*syncFile, error) {
	var h safejs.Value
	var err error
	if readOnly {
		h, err = callAwait(ctx, fh, "createSyncAccessHandle", object("mode", "read-only"))
	} else {
		h, err = callAwait(ctx, fh, "createSyncAccessHandle")
	}
	if err != nil {
		return nil, err
	}
	return &syncFile{h: h}, nil
}

func (f *syncFile) size() (int64, error) {
	v, err := call(f.h, "getSize")
	if err != nil {
		return 0, err
	}
	n, err := v.Float()
	return int64(n), err
}

func (f *syncFile) truncate(n int64) error {
	_, err := call(f.h, "truncate", n)
	return err
}

func (f *syncFile) flush() error {
	_, err := call(f.h, "flush")
	return err
}

func (f *syncFile) close() {
	if !f.closed {
		f.closed = true
		_, _ = call(f.h, "close")
	}
}

// readJS reads into the JS ArrayBufferView dst at file offset off and
// returns the bytes read (short only at the end of the file).
func (f *syncFile) readJS(dst safejs.Value, off int64) (int, error) {
	if f.readAt.IsUndefined() {
		f.readAt = object()
	}
	if err := f.readAt.Set("at", off); err != nil {
		return 0, err
	}
	v, err := call(f.h, "read", dst, f.readAt)
	if err != nil {
		return 0, err
	}
	return v.Int()
}

// writeJS writes the whole JS ArrayBufferView src at offset off. A full
// disk or quota surfaces as a QuotaExceededError (kind quota).
func (f *syncFile) writeJS(src safejs.Value, off int64) error {
	want := int(num(src, "byteLength"))
	v, err := call(f.h, "write", src, object("at", off))
	if err != nil {
		return err
	}
	if n, _ := v.Int(); n != want {
		// Chromium writes short instead of throwing when the quota runs out.
		return &jsError{Name: "QuotaExceededError", Message: fmt.Sprintf("wrote %d of %d bytes at %d", n, want, off)}
	}
	return nil
}

// writeGo writes Go bytes (small files only: metadata).
func (f *syncFile) writeGo(b []byte, off int64) error {
	u8, err := newBytes(len(b))
	if err != nil {
		return err
	}
	if _, err := safejs.CopyBytesToJS(u8, b); err != nil {
		return err
	}
	return f.writeJS(u8, off)
}

// ReadAt implements io.ReaderAt for the GGUF parser (metadata, small
// reads): the bytes cross into Go here, which is the point. Tensor data
// goes through readJS instead.
func (f *syncFile) ReadAt(p []byte, off int64) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	if f.scratch.IsUndefined() || int(num(f.scratch, "byteLength")) < len(p) {
		s, err := newBytes(max(len(p), 64<<10))
		if err != nil {
			return 0, err
		}
		f.scratch = s
	}
	view, err := f.scratch.Call("subarray", 0, len(p))
	if err != nil {
		return 0, err
	}
	n, err := f.readJS(view, off)
	if err != nil {
		return 0, err
	}
	if n > 0 {
		if n, err = safejs.CopyBytesToGo(p[:n], view); err != nil {
			return n, err
		}
	}
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}
