//go:build js

package opfs

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"syscall/js"

	"github.com/hack-pad/safejs"
)

// Source gives the loader a model's shard bytes: small reads into Go for
// the GGUF metadata (ReaderAt), bulk reads into JS buffers for tensor data.
type Source interface {
	// Shards is the number of shard files.
	Shards() int
	// Size is the byte size of shard i.
	Size(i int) int64
	// ReaderAt reads shard i into Go memory (metadata only).
	ReaderAt(i int) io.ReaderAt
	// ReadJS fills the JS Uint8Array dst with shard i's bytes at off.
	ReadJS(ctx context.Context, i int, off int64, dst safejs.Value) error
	// Close releases the source.
	Close()
}

// syncSource reads committed cache shards through sync access handles.
type syncSource struct {
	files []*syncFile
	sizes []int64
}

// Source opens the entry for loading through OPFS sync access handles.
func (e *Entry) Source(ctx context.Context) (Source, error) {
	fs, err := e.openShards(ctx)
	if err != nil {
		return nil, err
	}
	return &syncSource{files: fs, sizes: e.Meta.Sizes}, nil
}

func (s *syncSource) Shards() int                { return len(s.files) }
func (s *syncSource) Size(i int) int64           { return s.sizes[i] }
func (s *syncSource) ReaderAt(i int) io.ReaderAt { return s.files[i] }
func (s *syncSource) Close() {
	for _, f := range s.files {
		f.close()
	}
}

func (s *syncSource) ReadJS(_ context.Context, i int, off int64, dst safejs.Value) error {
	want := int(num(dst, "byteLength"))
	for got := 0; got < want; {
		view := dst
		if got > 0 {
			view, _ = dst.Call("subarray", got)
		}
		n, err := s.files[i].readJS(view, off+int64(got))
		if err != nil {
			return err
		}
		if n <= 0 {
			return &Error{Kind: KindFormat, Op: "load", Field: ShardName(i), Offset: off + int64(got), Msg: "file ends early"}
		}
		got += n
	}
	return nil
}

// blobSource reads Files or Blobs (a user-picked file, or a cache shard
// seen as a File) by slicing: each slice's arrayBuffer() is JS memory.
type blobSource struct {
	blobs []safejs.Value
	sizes []int64
}

// BlobSource loads from JS Blobs or Files, one per shard, in order (e.g.
// the files of an <input type=file> handed to the worker).
func BlobSource(blobs []js.Value) (Source, error) {
	s := &blobSource{}
	for i, b := range blobs {
		v := safejs.Safe(b)
		n := num(v, "size")
		if n < 0 || get(v, "slice").IsUndefined() {
			return nil, &Error{Kind: KindInvalid, Op: "load", Field: fmt.Sprintf("blob[%d]", i), Offset: -1, Msg: "not a Blob"}
		}
		s.blobs = append(s.blobs, v)
		s.sizes = append(s.sizes, int64(n))
	}
	return s, nil
}

// BlobSource opens the entry's shards as Files (slice reads, no sync access
// handle: works while another reader holds one).
func (e *Entry) BlobSource(ctx context.Context) (Source, error) {
	s := &blobSource{}
	for i, size := range e.Meta.Sizes {
		f, err := e.File(ctx, i)
		if err != nil {
			return nil, err
		}
		if int64(num(f, "size")) != size {
			return nil, &Error{Kind: KindIntegrity, Op: "open", Key: e.Meta.Key, Field: ShardName(i), Offset: int64(num(f, "size")), Msg: "size differs from meta.json"}
		}
		s.blobs = append(s.blobs, f)
		s.sizes = append(s.sizes, size)
	}
	return s, nil
}

func (s *blobSource) Shards() int      { return len(s.blobs) }
func (s *blobSource) Size(i int) int64 { return s.sizes[i] }
func (s *blobSource) Close()           {}
func (s *blobSource) ReaderAt(i int) io.ReaderAt {
	return readerFunc(func(p []byte, off int64) (int, error) {
		return goRead(p, off, s.sizes[i], func(dst safejs.Value) error {
			return s.ReadJS(context.Background(), i, off, dst)
		})
	})
}

func (s *blobSource) ReadJS(ctx context.Context, i int, off int64, dst safejs.Value) error {
	n := int64(num(dst, "byteLength"))
	if off < 0 || off+n > s.sizes[i] {
		return &Error{Kind: KindFormat, Op: "load", Field: fmt.Sprintf("blob[%d]", i), Offset: off, Msg: "read past the end"}
	}
	part, err := call(s.blobs[i], "slice", off, off+n)
	if err != nil {
		return err
	}
	ab, err := callAwait(ctx, part, "arrayBuffer")
	if err != nil {
		return err
	}
	src, err := global("Uint8Array").New(ab)
	if err != nil {
		return err
	}
	_, err = call(dst, "set", src)
	return err
}

// readerFunc adapts a function to io.ReaderAt.
type readerFunc func(p []byte, off int64) (int, error)

func (f readerFunc) ReadAt(p []byte, off int64) (int, error) { return f(p, off) }

// goRead reads len(p) bytes (clipped to size) through a JS buffer filled by
// fill and copies them into p: the metadata path.
func goRead(p []byte, off, size int64, fill func(dst safejs.Value) error) (int, error) {
	if off < 0 || off >= size {
		return 0, io.EOF
	}
	n := min(int64(len(p)), size-off)
	dst, err := newBytes(int(n))
	if err != nil {
		return 0, err
	}
	if err := fill(dst); err != nil {
		return 0, err
	}
	k, err := safejs.CopyBytesToGo(p[:n], dst)
	if err != nil {
		return k, err
	}
	if int64(k) < int64(len(p)) {
		return k, io.EOF
	}
	return k, nil
}

// urlSource loads from the network without caching: metadata through Range
// requests, tensor data through one sequential stream per shard (tensors
// are read in file order).
type urlSource struct {
	urls  []string
	sizes []int64
	cur   struct {
		shard  int
		pos    int64        // file offset of the first byte of rest
		reader safejs.Value // the body's reader; undefined when none
		rest   safejs.Value // unread part of the last chunk
		stop   context.CancelFunc
	}
}

// URLSource prepares loading urls (one per shard) straight from the
// network. The server must answer Range requests (for the metadata).
func URLSource(ctx context.Context, urls []string) (Source, error) {
	s := &urlSource{urls: urls}
	s.cur.shard = -1
	for i, u := range urls {
		resp, err := s.fetch(ctx, u, 0, 0)
		if err != nil {
			return nil, err
		}
		_, _, total, err := ParseContentRange(hdr(resp, "Content-Range"))
		if err != nil || total < 0 {
			return nil, &Error{Kind: KindHTTP, Op: "load", Field: "content-range", Offset: -1, Msg: fmt.Sprintf("shard %d: the server must answer Range requests (%s)", i, u)}
		}
		if b := get(resp, "body"); !b.IsNull() && !b.IsUndefined() {
			_, _ = b.Call("cancel")
		}
		s.sizes = append(s.sizes, total)
	}
	return s, nil
}

// failedStatus is st when it is an HTTP error (not 2xx), else 0: a 200 to a
// Range request means "no Range support" (the page then fetches the whole
// file), not a failure to report as a status.
func failedStatus(st int) int {
	if st >= 200 && st < 300 {
		return 0
	}
	return st
}

func hdr(resp safejs.Value, name string) string {
	v, err := get(resp, "headers").Call("get", name)
	if err != nil || v.Type() != safejs.TypeString {
		return ""
	}
	s, _ := v.String()
	return s
}

// fetch requests url from byte from (to byte to inclusive, or the end when
// to < from) and checks for 206.
func (s *urlSource) fetch(ctx context.Context, url string, from, to int64) (safejs.Value, error) {
	rng := "bytes=" + strconv.FormatInt(from, 10) + "-"
	if to >= from {
		rng += strconv.FormatInt(to, 10)
	}
	resp, err := callAwait(ctx, safejs.Global(), "fetch", url, object("headers", object("Range", rng), "cache", "no-store"))
	if err != nil {
		if ctx.Err() != nil {
			return safejs.Value{}, ctx.Err()
		}
		return safejs.Value{}, noResponse("load", "", url, err)
	}
	if st := int(num(resp, "status")); st != 206 {
		return safejs.Value{}, &Error{Kind: KindHTTP, Op: "load", Field: "status", Offset: -1, Msg: fmt.Sprintf("HTTP %d for a Range request to %s", st, url), Status: failedStatus(st)}
	}
	return resp, nil
}

func (s *urlSource) Shards() int      { return len(s.urls) }
func (s *urlSource) Size(i int) int64 { return s.sizes[i] }
func (s *urlSource) Close()           { s.drop() }

func (s *urlSource) drop() {
	if !s.cur.reader.IsUndefined() {
		_, _ = s.cur.reader.Call("cancel")
	}
	if s.cur.stop != nil {
		s.cur.stop()
	}
	s.cur.reader, s.cur.rest, s.cur.shard = safejs.Value{}, safejs.Value{}, -1
}

func (s *urlSource) ReaderAt(i int) io.ReaderAt {
	return readerFunc(func(p []byte, off int64) (int, error) {
		return goRead(p, off, s.sizes[i], func(dst safejs.Value) error {
			n := int64(num(dst, "byteLength"))
			resp, err := s.fetch(context.Background(), s.urls[i], off, off+n-1)
			if err != nil {
				return err
			}
			ab, err := callAwait(context.Background(), resp, "arrayBuffer")
			if err != nil {
				return wrap(err, KindNetwork, "load", "", s.urls[i])
			}
			if int64(num(ab, "byteLength")) != n {
				return &Error{Kind: KindHTTP, Op: "load", Field: "body", Offset: off, Msg: "short range response"}
			}
			src, _ := global("Uint8Array").New(ab)
			_, err = call(dst, "set", src)
			return err
		})
	})
}

// ReadJS serves reads in increasing offset order from one streaming
// response per shard; a backwards read restarts the stream.
func (s *urlSource) ReadJS(ctx context.Context, i int, off int64, dst safejs.Value) error {
	want := int64(num(dst, "byteLength"))
	if off < 0 || off+want > s.sizes[i] {
		return &Error{Kind: KindFormat, Op: "load", Field: s.urls[i], Offset: off, Msg: "read past the end"}
	}
	if s.cur.shard != i || off < s.cur.pos {
		s.drop()
		sctx, stop := context.WithCancel(context.Background())
		ac, _ := global("AbortController").New()
		go func() { <-sctx.Done(); _, _ = ac.Call("abort") }()
		resp, err := callAwait(ctx, safejs.Global(), "fetch", s.urls[i], object("headers", object("Range", "bytes="+strconv.FormatInt(off, 10)+"-"), "cache", "no-store", "signal", get(ac, "signal")))
		if err != nil {
			stop()
			return wrap(err, KindNetwork, "load", "", s.urls[i])
		}
		if st := int(num(resp, "status")); st != 206 {
			stop()
			return &Error{Kind: KindHTTP, Op: "load", Field: "status", Offset: off, Msg: fmt.Sprintf("HTTP %d for a Range request to %s", st, s.urls[i]), Status: failedStatus(st)}
		}
		r, err := call(get(resp, "body"), "getReader")
		if err != nil {
			stop()
			return err
		}
		s.cur.shard, s.cur.pos, s.cur.reader, s.cur.stop = i, off, r, stop
	}
	var got int64
	for got < want {
		if s.cur.rest.IsUndefined() || num(s.cur.rest, "byteLength") == 0 {
			chunk, err := callAwait(ctx, s.cur.reader, "read")
			if err != nil {
				s.drop()
				return wrap(err, KindNetwork, "load", "", s.urls[i])
			}
			if done, _ := get(chunk, "done").Bool(); done {
				s.drop()
				return &Error{Kind: KindNetwork, Op: "load", Field: s.urls[i], Offset: s.cur.pos, Msg: "stream ended early"}
			}
			s.cur.rest = get(chunk, "value")
		}
		avail := int64(num(s.cur.rest, "byteLength"))
		if skip := off + got - s.cur.pos; skip > 0 { // alignment gaps between tensors
			k := min(skip, avail)
			s.cur.rest, _ = s.cur.rest.Call("subarray", k)
			s.cur.pos += k
			continue
		}
		k := min(avail, want-got)
		part, _ := s.cur.rest.Call("subarray", 0, k)
		if _, err := call(dst, "set", part, got); err != nil {
			return err
		}
		s.cur.rest, _ = s.cur.rest.Call("subarray", k)
		s.cur.pos += k
		got += k
	}
	return nil
}
