//go:build js && webgguf_test

package opfs

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/hack-pad/safejs"
	"github.com/webgguf/webgguf/gguf"
	"github.com/webgguf/webgguf/webgpu"
)

// This is the loader's own GPU path, a test and benchmark of streaming
// (OpfsLoadRequest): the engine loads through compute/gpu. Only the test
// engine (webgguf_test) has it.

// LoadOptions configure Load.
type LoadOptions struct {
	ChunkBytes int // bytes per read and GPU write; 0 = gguf.DefaultChunkSize (1 MiB)
	// MaxBuffer caps each GPU buffer of the plan; 0 = 256 MiB.
	MaxBuffer uint64
	// Progress, if set, is called at most every 50 ms and at the end.
	Progress func(Progress)
}

// Model is a model whose tensors sit in GPU buffers: Plan.Placements[k]
// is where Tensors[k] (of shard Shard[k]) lives in Buffers.
type Model struct {
	Files   []*gguf.File // one per shard
	Tensors []*gguf.TensorInfo
	Shard   []int
	Plan    *webgpu.Plan
	Buffers []*webgpu.Buffer
	Bytes   int64 // tensor bytes uploaded
}

// Free destroys the model's GPU buffers.
func (m *Model) Free() {
	for _, b := range m.Buffers {
		b.Destroy()
	}
	live.Add(-int64(len(m.Buffers)))
	m.Buffers = nil
}

// live counts the GPU buffers Load made that are not freed yet: tests check
// that a cancelled or failed load leaves none behind.
var live atomic.Int64

// LiveBuffers returns the number of loader GPU buffers not freed yet.
func LiveBuffers() int64 { return live.Load() }

// OpenGGUF parses the GGUF metadata of every shard of src.
func OpenGGUF(src Source) ([]*gguf.File, error) {
	var fs []*gguf.File
	for i := range src.Shards() {
		f, err := gguf.Open(src.ReaderAt(i), src.Size(i))
		if err != nil {
			return nil, &Error{Kind: KindFormat, Op: "load", Field: ShardName(i), Offset: -1, Err: err}
		}
		fs = append(fs, f)
	}
	return fs, nil
}

// Load parses src's GGUF metadata, plans GPU buffers for every tensor,
// and streams the tensor bytes into them in 1 MiB chunks through one
// reused JS buffer: the weights never enter Go memory. On error or
// cancellation every buffer it made is destroyed.
func Load(ctx context.Context, d *webgpu.Device, src Source, opt LoadOptions) (*Model, error) {
	chunk := opt.ChunkBytes
	if chunk <= 0 {
		chunk = gguf.DefaultChunkSize
	}
	if chunk%4 != 0 || chunk > 64<<20 {
		return nil, &Error{Kind: KindInvalid, Op: "load", Field: "chunkBytes", Offset: -1, Msg: fmt.Sprintf("%d is not a multiple of 4 up to 64 MiB", chunk)}
	}
	files, err := OpenGGUF(src)
	if err != nil {
		return nil, err
	}
	m := &Model{Files: files}
	var specs []webgpu.TensorSpec
	var total int64
	for si, f := range files {
		for k := range f.Tensors {
			ti := &f.Tensors[k]
			rows, rb, err := Spec(ti)
			if err != nil {
				return nil, &Error{Kind: KindFormat, Op: "load", Field: ti.Name, Offset: -1, Err: err}
			}
			m.Tensors = append(m.Tensors, ti)
			m.Shard = append(m.Shard, si)
			specs = append(specs, webgpu.TensorSpec{Name: ti.Name, Rows: rows, RowBytes: rb})
			total += ti.Size
		}
	}
	maxBuf := opt.MaxBuffer
	if maxBuf == 0 {
		maxBuf = 256 << 20
	}
	if m.Plan, err = webgpu.NewPlan(d.Limits(), specs, webgpu.PlanOptions{MaxBuffer: maxBuf}); err != nil {
		return nil, &Error{Kind: KindGPU, Op: "load", Offset: -1, Err: err}
	}
	if m.Buffers, err = d.CreatePlanBuffers("weights", m.Plan, webgpu.UsageStorage|webgpu.UsageCopyDst|webgpu.UsageCopySrc); err != nil {
		return nil, &Error{Kind: KindGPU, Op: "load", Offset: -1, Err: err}
	}
	live.Add(int64(len(m.Buffers)))
	ok := false
	defer func() {
		if !ok {
			m.Free()
		}
	}()
	staging, err := newBytes(chunk + 4)
	if err != nil {
		return nil, err
	}
	// A full chunk reuses one view: no JS object per chunk (Streamer).
	fullView, err := staging.Call("subarray", 0, chunk)
	if err != nil {
		return nil, err
	}
	start, last := time.Now(), time.Time{}
	var done, sinceFence int64
	report := func(force bool) {
		if opt.Progress == nil {
			return
		}
		if now := time.Now(); force || now.Sub(last) > 50*time.Millisecond {
			last = now
			p := Progress{Stage: "load", Shards: len(files), Done: done, Total: total, AllDone: done, AllTotal: total}
			if s := time.Since(start).Seconds(); s > 0 {
				p.BytesPerSec = float64(done) / s
			}
			opt.Progress(p)
		}
	}
	for k, ti := range m.Tensors {
		f := files[m.Shard[k]]
		base := f.DataOffset + int64(ti.Offset)
		if base < 0 || ti.Size > src.Size(m.Shard[k])-base {
			return nil, &Error{Kind: KindFormat, Op: "load", Field: ti.Name, Offset: base, Msg: "data outside the file"}
		}
		pl := &m.Plan.Placements[k]
		parts := make([]PartRange, len(pl.Parts))
		for j, p := range pl.Parts {
			s := p.FirstRow * specs[k].RowBytes
			parts[j] = PartRange{Start: s, End: s + p.Bytes, Buffer: p.Buffer, Offset: p.Offset}
		}
		err := EachChunk(parts, chunk, func(c Chunk) error {
			if err := ctx.Err(); err != nil {
				return err
			}
			view := fullView
			if c.Len != chunk {
				view, _ = staging.Call("subarray", 0, c.Len)
			}
			if err := src.ReadJS(ctx, m.Shard[k], base+int64(c.Src), view); err != nil {
				return wrap(err, KindFormat, "load", "", fmt.Sprintf("tensor %q at byte %d", ti.Name, base+int64(c.Src)))
			}
			if c.Pad > 0 {
				_, _ = staging.Call("fill", 0, c.Len, c.Len+c.Pad)
				view, _ = staging.Call("subarray", 0, c.Len+c.Pad)
			}
			if err := d.WriteBufferJS(m.Buffers[c.Buffer], c.Dst, safejs.Unsafe(view)); err != nil {
				return &Error{Kind: KindGPU, Op: "load", Field: ti.Name, Offset: base + int64(c.Src), Err: err}
			}
			done += int64(c.Len)
			sinceFence += int64(c.Len)
			if sinceFence >= 64<<20 {
				// Bound the writes queued in the GPU process, and yield to the
				// event loop so a Cancel frame can arrive.
				sinceFence = 0
				releaseJS()
				if _, err := d.ReadBuffer(ctx, m.Buffers[c.Buffer], c.Dst&^3, 4); err != nil {
					return &Error{Kind: KindGPU, Op: "load", Field: ti.Name, Offset: -1, Err: err}
				}
			}
			report(false)
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	report(true)
	m.Bytes = done
	ok = true
	return m, nil
}

// ReadBack returns tensor name's bytes as stored on the GPU (tests).
func (m *Model) ReadBack(ctx context.Context, d *webgpu.Device, name string) (*gguf.TensorInfo, int, string, error) {
	for k, ti := range m.Tensors {
		if ti.Name != name {
			continue
		}
		h := sha256.New()
		for _, p := range m.Plan.Placements[k].Parts {
			b, err := d.ReadBuffer(ctx, m.Buffers[p.Buffer], p.Offset, p.Size)
			if err != nil {
				return nil, 0, "", err
			}
			h.Write(b[:p.Bytes])
		}
		return ti, m.Shard[k], hex.EncodeToString(h.Sum(nil)), nil
	}
	return nil, 0, "", &Error{Kind: KindNotFound, Op: "readback", Field: name, Offset: -1, Msg: "no such tensor"}
}
