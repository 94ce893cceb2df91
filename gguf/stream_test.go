package gguf

import (
	"bytes"
	"errors"
	"io"
	"sync/atomic"
	"testing"
)

// TestStreamTensor checks chunking for several buffer sizes against
// ReadTensor, buffer reuse, early stop and range re-checking.
func TestStreamTensor(t *testing.T) {
	data := sampleFile(t)
	f, err := Open(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	for i := range f.Tensors {
		ti := &f.Tensors[i]
		want, err := f.ReadTensor(ti)
		if err != nil {
			t.Fatal(err)
		}
		for _, size := range []int{0, 1, 7, 64, int(ti.Size), int(ti.Size) + 5} {
			var buf []byte
			if size > 0 {
				buf = make([]byte, size)
			}
			var got []byte
			var calls int
			err := f.StreamTensor(ti, buf, func(off int64, chunk []byte) error {
				calls++
				if off != int64(len(got)) {
					t.Fatalf("%s/%d: chunk at %d after %d bytes", ti.Name, size, off, len(got))
				}
				if size > 0 && &chunk[0] != &buf[0] {
					t.Fatalf("%s/%d: chunk not in the caller's buffer", ti.Name, size)
				}
				if size > 0 && len(chunk) != min(size, int(ti.Size-off)) {
					t.Fatalf("%s/%d: chunk of %d bytes", ti.Name, size, len(chunk))
				}
				got = append(got, chunk...)
				return nil
			})
			if err != nil || !bytes.Equal(got, want) {
				t.Fatalf("%s/%d: %v, equal %v", ti.Name, size, err, bytes.Equal(got, want))
			}
			if size == 0 && calls != 1 {
				t.Errorf("%s: default chunk made %d calls", ti.Name, calls)
			}
		}
	}
	stop := errors.New("stop")
	calls := 0
	err = f.StreamTensor(&f.Tensors[0], make([]byte, 8), func(int64, []byte) error { calls++; return stop })
	if err != stop || calls != 1 {
		t.Errorf("early stop: %v after %d calls", err, calls)
	}
	bad := f.Tensors[0]
	bad.Offset = uint64(len(data))
	if err := f.StreamTensor(&bad, nil, func(int64, []byte) error { return nil }); !errors.Is(err, ErrTensorBounds) {
		t.Errorf("out-of-file tensor: %v", err)
	}
	bad = f.Tensors[0]
	bad.Split = 3
	if _, err := f.ReadTensor(&bad); err == nil {
		t.Error("tensor of a missing shard read")
	}
}

// TestStreamDefaultChunk streams a tensor larger than DefaultChunkSize and
// checks it arrives in 1 MiB chunks.
func TestStreamDefaultChunk(t *testing.T) {
	n := uint64(DefaultChunkSize/4 + 1000)
	td := TensorData{Name: "big", Type: TypeF32, Ne: []uint64{n}, Data: make([]byte, 4*n)}
	for i := range td.Data {
		td.Data[i] = byte(i*7 + 1)
	}
	var buf bytes.Buffer
	if err := Write(&buf, nil, []TensorData{td}, 0); err != nil {
		t.Fatal(err)
	}
	f, err := Open(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	if err != nil {
		t.Fatal(err)
	}
	var sizes []int
	var got []byte
	err = f.StreamTensor(&f.Tensors[0], nil, func(_ int64, c []byte) error {
		sizes = append(sizes, len(c))
		got = append(got, c...)
		return nil
	})
	if err != nil || len(sizes) != 2 || sizes[0] != DefaultChunkSize || !bytes.Equal(got, td.Data) {
		t.Errorf("chunks %v, err %v", sizes, err)
	}
}

// countingReader counts ReadAt calls.
type countingReader struct {
	r     io.ReaderAt
	calls atomic.Int64
}

func (c *countingReader) ReadAt(p []byte, off int64) (int, error) {
	c.calls.Add(1)
	return c.r.ReadAt(p, off)
}

// TestOpenBuffered checks that parsing a 151669-token vocabulary reads the
// source in big blocks (one ReadAt per 64 KiB, plus a few), which is what
// keeps parsing fast over OPFS or HTTP range sources.
func TestOpenBuffered(t *testing.T) {
	data := readFixture(t, "vocab-qwen3-bpe.gguf")
	cr := &countingReader{r: bytes.NewReader(data)}
	f, err := Open(cr, int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	toks, _ := f.Strings("tokenizer.ggml.tokens")
	limit := int64(len(data))/bufSize + 16
	if cr.calls.Load() > limit || len(toks) != 151669 {
		t.Errorf("%d ReadAt calls for %d bytes (limit %d), %d tokens", cr.calls.Load(), len(data), limit, len(toks))
	}
}
