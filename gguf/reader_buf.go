package gguf

import (
	"encoding/binary"
	"errors"
	"io"
	"math"
)

// bufSize is the read-ahead of the header parser. Metadata is a long run of
// small fields (a 150k-token vocabulary is ~300k of them), so reading it
// through ReadAt one field at a time would be a syscall (or an HTTP range
// request, or an OPFS call) per field. A file smaller than that gets a
// buffer of its own size: it is read in one call either way, and parsing a
// small file (a fuzz input, a vocabulary shard) then does not allocate and
// clear 64 KiB.
const bufSize = 64 << 10

// breader is a forward-only buffered reader over an io.ReaderAt that knows
// the file size, so every length can be checked against what remains.
type breader struct {
	r    io.ReaderAt
	size int64
	buf  []byte
	base int64 // file offset of buf[0]
	pos  int   // read position within buf
	n    int   // valid bytes in buf
}

func newBreader(r io.ReaderAt, size int64) *breader {
	return &breader{r: r, size: size, buf: make([]byte, min(size, bufSize))}
}

// off is the file offset of the next byte to read.
func (b *breader) off() int64 { return b.base + int64(b.pos) }

// remaining is the number of bytes between off and the end of the file.
func (b *breader) remaining() int64 { return b.size - b.off() }

// fill makes at least need (≤ len(b.buf)) bytes available at pos, or reports
// truncation. field names what is being read, for the error.
func (b *breader) fill(need int, field string) error {
	if b.n-b.pos >= need {
		return nil
	}
	start := b.off()
	if int64(need) > b.size-start {
		return ferr(start, field, ErrTruncated)
	}
	copy(b.buf, b.buf[b.pos:b.n])
	b.n -= b.pos
	b.base = start
	b.pos = 0
	want := int64(len(b.buf) - b.n)
	if rest := b.size - (start + int64(b.n)); want > rest {
		want = rest
	}
	got, err := b.r.ReadAt(b.buf[b.n:b.n+int(want)], start+int64(b.n))
	b.n += got
	if b.n < need {
		if err == nil || errors.Is(err, io.EOF) {
			err = ErrTruncated
		}
		return ferr(start, field, err)
	}
	return nil
}

func (b *breader) bytes(n int, field string) ([]byte, error) {
	if err := b.fill(n, field); err != nil {
		return nil, err
	}
	p := b.buf[b.pos : b.pos+n]
	b.pos += n
	return p, nil
}

func (b *breader) u8(field string) (uint8, error) {
	p, err := b.bytes(1, field)
	if err != nil {
		return 0, err
	}
	return p[0], nil
}

func (b *breader) u16(field string) (uint16, error) {
	p, err := b.bytes(2, field)
	if err != nil {
		return 0, err
	}
	return binary.LittleEndian.Uint16(p), nil
}

func (b *breader) u32(field string) (uint32, error) {
	p, err := b.bytes(4, field)
	if err != nil {
		return 0, err
	}
	return binary.LittleEndian.Uint32(p), nil
}

func (b *breader) u64(field string) (uint64, error) {
	p, err := b.bytes(8, field)
	if err != nil {
		return 0, err
	}
	return binary.LittleEndian.Uint64(p), nil
}

// count reads a uint64 element count and checks that count elements of at
// least minSize bytes each fit in the rest of the file, so callers can
// allocate count elements safely.
func (b *breader) count(minSize int64, field string) (int, error) {
	at := b.off()
	c, err := b.u64(field)
	if err != nil {
		return 0, err
	}
	if minSize < 1 {
		minSize = 1
	}
	if c > uint64(b.remaining()/minSize) || c > math.MaxInt32 {
		return 0, ferr(at, field, ErrTooLarge)
	}
	return int(c), nil
}

// str reads a GGUF string: uint64 length, then that many bytes.
func (b *breader) str(maxLen int64, field string) (string, error) {
	at := b.off()
	l, err := b.u64(field)
	if err != nil {
		return "", err
	}
	if l > uint64(b.remaining()) {
		return "", ferr(at, field, ErrTooLarge)
	}
	if maxLen > 0 && l > uint64(maxLen) {
		return "", ferr(at, field, ErrNameLength)
	}
	n := int(l)
	if n <= len(b.buf) {
		p, err := b.bytes(n, field)
		if err != nil {
			return "", err
		}
		return string(p), nil
	}
	// Longer than the buffer (e.g. a big chat template): read it directly.
	out := make([]byte, n)
	c := copy(out, b.buf[b.pos:b.n])
	b.pos = b.n
	start := b.off()
	got, err := b.r.ReadAt(out[c:], start)
	if got < n-c {
		if err == nil || errors.Is(err, io.EOF) {
			err = ErrTruncated
		}
		return "", ferr(start, field, err)
	}
	b.base = start + int64(n-c)
	b.pos, b.n = 0, 0
	return string(out), nil
}

// appendStr reads a GGUF string and appends its bytes to dst, so that a
// string array can be built from one allocation instead of one per element.
func (b *breader) appendStr(dst []byte, field string) ([]byte, error) {
	at := b.off()
	l, err := b.u64(field)
	if err != nil {
		return dst, err
	}
	if l > uint64(b.remaining()) {
		return dst, ferr(at, field, ErrTooLarge)
	}
	for n := int(l); n > 0; {
		k := min(n, len(b.buf))
		p, err := b.bytes(k, field)
		if err != nil {
			return dst, err
		}
		dst = append(dst, p...)
		n -= k
	}
	return dst, nil
}
