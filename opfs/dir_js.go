//go:build js

package opfs

import (
	"context"

	"github.com/hack-pad/safejs"
)

// call calls method m of v, turning a thrown exception into an error that
// keeps its DOMException name.
func call(v safejs.Value, m string, args ...any) (safejs.Value, error) {
	r, err := v.Call(m, args...)
	if err != nil {
		return r, jsCallErr(m, err)
	}
	return r, nil
}

// storageRoot returns the origin's OPFS root directory.
func storageRoot(ctx context.Context) (safejs.Value, error) {
	nav := global("navigator")
	st := get(nav, "storage")
	if st.IsUndefined() || get(st, "getDirectory").IsUndefined() {
		return safejs.Value{}, newErr(KindUnsupported, "open", "", "navigator.storage.getDirectory is missing", nil)
	}
	return callAwait(ctx, st, "getDirectory")
}

// subdir returns the directory name inside dir, creating it when create.
func subdir(ctx context.Context, dir safejs.Value, name string, create bool) (safejs.Value, error) {
	return callAwait(ctx, dir, "getDirectoryHandle", name, object("create", create))
}

// fileIn returns the file handle name inside dir, creating it when create.
func fileIn(ctx context.Context, dir safejs.Value, name string, create bool) (safejs.Value, error) {
	return callAwait(ctx, dir, "getFileHandle", name, object("create", create))
}

// remove deletes name from dir (recursively for directories); a missing
// entry is not an error. It reports whether something was removed.
func remove(ctx context.Context, dir safejs.Value, name string) (bool, error) {
	_, err := callAwait(ctx, dir, "removeEntry", name, object("recursive", true))
	if err != nil {
		if kindOf(err, "") == KindNotFound {
			return false, nil
		}
		return false, err
	}
	return true, nil
}

// names lists the entries of dir (names only).
func names(ctx context.Context, dir safejs.Value) ([]string, error) {
	it, err := call(dir, "keys")
	if err != nil {
		return nil, err
	}
	var out []string
	for len(out) < 1<<16 { // a bound: the cache never holds this many entries
		r, err := callAwait(ctx, it, "next")
		if err != nil {
			return nil, err
		}
		if done, _ := get(r, "done").Bool(); done {
			break
		}
		s, _ := get(r, "value").String()
		out = append(out, s)
	}
	return out, nil
}

// move renames file handle fh to name inside dir (FileSystemHandle.move).
func move(ctx context.Context, fh, dir safejs.Value, name string) error {
	if get(fh, "move").IsUndefined() {
		return newErr(KindUnsupported, "commit", "", "FileSystemHandle.move is missing", nil)
	}
	_, err := callAwait(ctx, fh, "move", dir, name)
	return err
}

// readSmall reads a whole small file (≤ MaxMetaBytes) through a Blob.
func readSmall(ctx context.Context, dir safejs.Value, name string) ([]byte, error) {
	fh, err := fileIn(ctx, dir, name, false)
	if err != nil {
		return nil, err
	}
	f, err := callAwait(ctx, fh, "getFile")
	if err != nil {
		return nil, err
	}
	size := num(f, "size")
	if size < 0 || size > MaxMetaBytes {
		return nil, &Error{Kind: KindInvalid, Op: "read", Field: name, Offset: MaxMetaBytes, Msg: "too large or unreadable"}
	}
	ab, err := callAwait(ctx, f, "arrayBuffer")
	if err != nil {
		return nil, err
	}
	u8, err := global("Uint8Array").New(ab)
	if err != nil {
		return nil, err
	}
	out := make([]byte, int(size))
	if _, err := safejs.CopyBytesToGo(out, u8); err != nil {
		return nil, err
	}
	return out, nil
}

// writeSmall replaces file name in dir with b: written to name+".tmp"
// through a sync access handle, flushed, then moved over name, so a reader
// sees the old or the new content, never a torn file.
func writeSmall(ctx context.Context, dir safejs.Value, name string, b []byte) error {
	tmp := name + ".tmp"
	fh, err := fileIn(ctx, dir, tmp, true)
	if err != nil {
		return err
	}
	f, err := openSync(ctx, fh, false)
	if err != nil {
		return err
	}
	err = f.truncate(0)
	if err == nil {
		err = f.writeGo(b, 0)
	}
	if err == nil {
		err = f.flush()
	}
	f.close()
	if err != nil {
		_, _ = remove(ctx, dir, tmp)
		return err
	}
	return move(ctx, fh, dir, name)
}
