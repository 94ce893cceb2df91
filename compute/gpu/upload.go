package gpu

import (
	"fmt"

	"github.com/webgguf/webgguf/webgpu"
)

// uploader writes a stream of chunks into a weight's parts. WebGPU writes need
// 4-byte offsets and lengths; a chunk ending off that grid leaves its last
// 1-3 bytes in carry, prepended to the next chunk or padded at the end.
type uploader struct {
	d     *webgpu.Device
	w     *weight // where the bytes go (weight.write splits at parts)
	name  string
	size  uint64
	got   uint64 // bytes received
	carry [4]byte
	nc    int    // bytes in carry
	host  []byte // when set, every byte is also kept here
	tmp   []byte // staging for chunks that follow a carry
}

func (u *uploader) write(off int64, chunk []byte) error {
	if off < 0 || uint64(off) != u.got || uint64(len(chunk)) > u.size-u.got {
		return &Error{u.name, fmt.Sprintf("chunk at %d+%d out of order (have %d of %d)", off, len(chunk), u.got, u.size)}
	}
	if u.host != nil {
		copy(u.host[off:], chunk)
	}
	u.got += uint64(len(chunk))
	data := chunk
	if u.nc > 0 {
		// Rare path (chunks of odd sizes): stage carry+chunk.
		u.tmp = append(append(u.tmp[:0], u.carry[:u.nc]...), chunk...)
		data = u.tmp
	}
	base := uint64(off) - uint64(u.nc)
	n := len(data) &^ 3
	if n > 0 {
		if err := u.w.write(u.d, base, data[:n]); err != nil {
			return err
		}
	}
	u.nc = copy(u.carry[:], data[n:])
	return nil
}

// finish checks that the stream was complete and writes the padded tail.
func (u *uploader) finish() error {
	if u.got != u.size {
		return &Error{u.name, fmt.Sprintf("stream ended after %d of %d bytes", u.got, u.size)}
	}
	if u.nc > 0 {
		var tail [4]byte
		copy(tail[:], u.carry[:u.nc])
		return u.w.write(u.d, u.size-uint64(u.nc), tail[:])
	}
	return nil
}
