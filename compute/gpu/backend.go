package gpu

import (
	"context"
	"fmt"
	"sync"

	"github.com/webgguf/webgguf/compute"
	"github.com/webgguf/webgguf/gguf"
	"github.com/webgguf/webgguf/webgpu"
)

// Backend is the WebGPU implementation of compute.Backend. Its methods are
// safe for concurrent use; a Program must be run by one goroutine at a time.
type Backend struct {
	d       *webgpu.Device
	ownsDev bool

	mu       sync.Mutex
	weights  map[*compute.Tensor]*weight
	planned  map[*compute.Tensor]*weight // placed by PlanWeights, not loaded yet
	arenas   []*webgpu.Buffer            // PlanWeights's buffers
	wlim     WeightLimits
	caches   map[*compute.Tensor]*webgpu.Buffer
	cacheKV  map[*compute.Tensor]gguf.GGMLType // each cache's element type
	kv       gguf.GGMLType                     // SetKVType: for caches allocated next
	ones     map[int]*webgpu.Buffer            // all-ones norm weights by length
	progs    []*program
	mem      int64
	stats    Stats
	last     lastStep                      // for ProfileLast
	attn     *DecodeAttention              // nil: DefaultDecodeAttention
	pattn    *PrefillAttention             // nil: DefaultPrefillAttention
	splitK   *bool                         // SetMatmulSplitK; nil: on hardware adapters
	db       *bool                         // SetMatmulDB; nil: plain-format QKV matmuls on hardware adapters (matmulDB)
	mvShape  [numMatvecClasses]MatvecShape // SetMatvecShape; zero: shaders.MatvecTuned
	noRope   bool                          // SetQKVRope(false)
	noPostIn bool                          // SetPostIn(false)
	mergeX   bool                          // SetMergeX(true)
	depth    int                           // SetPipelineDepth; 0: the default (ArgmaxDepth)
	rbBatch  int                           // SetReadbackBatch; 0: the default (ReadbackBatch)
	// noQKVMatmul: SetPrefillQKV(false).
	noQKVMatmul bool
	// noOneBinding: SetMatmulOneBinding(false).
	noOneBinding bool
	closed       bool
}

// weight is one weight's storage: its bytes in file format, in one part
// or, when larger than a binding may be, split by rows into several (see
// place.go); 1-D weights also keep their bytes on the host for the f32
// expansion.
type weight struct {
	t     *compute.Tensor
	parts []wpart
	own   []*webgpu.Buffer // buffers made for this weight alone
	size  uint64
	host  []byte
	f32   *webgpu.Buffer // expanded 1-D weight, made at the first Compile
	// packed: the bytes were rewritten into shaders' packed layout (repack.go).
	packed bool
}

// Error is a typed error of the GPU backend naming the tensor involved.
type Error struct {
	Tensor string
	Reason string
}

func (e *Error) Error() string { return fmt.Sprintf("gpu: %s: %s", e.Tensor, e.Reason) }

// New returns a backend on device d, which the caller keeps owning.
func New(d *webgpu.Device) *Backend {
	return &Backend{d: d, weights: map[*compute.Tensor]*weight{}, caches: map[*compute.Tensor]*webgpu.Buffer{},
		cacheKV: map[*compute.Tensor]gguf.GGMLType{}, kv: DefaultKVType, ones: map[int]*webgpu.Buffer{}}
}

// Open opens the default high-performance adapter and returns a backend
// that closes the device on Close.
func Open(ctx context.Context) (*Backend, error) {
	d, err := webgpu.Open(ctx, webgpu.Options{PowerPreference: webgpu.PowerHigh})
	if err != nil {
		return nil, err
	}
	b := New(d)
	b.ownsDev = true
	return b, nil
}

// OpenBackend is Open as a backend factory (enginehost.BackendFactory's
// shape), for registering the GPU backend by name.
func OpenBackend(ctx context.Context) (compute.Backend, error) {
	b, err := Open(ctx)
	if err != nil {
		return nil, err
	}
	return b, nil
}

// Device returns the device the backend runs on.
func (b *Backend) Device() *webgpu.Device { return b.d }

// Name returns "webgpu".
func (b *Backend) Name() string { return "webgpu" }

// SoftwareAdapter reports whether the device is a software renderer
// (SwiftShader, lavapipe) and names it. There WGSL runs on the CPU through a
// rasterizer, one to two orders of magnitude slower than the engine's own CPU
// backend (scripts/bench/RESULTS.md), so "auto" loads prefer the CPU.
func (b *Backend) SoftwareAdapter() (bool, string) {
	i := b.d.Info()
	return i.Fallback, i.Adapter
}

// weightBytes checks t's shape and type and returns its size in bytes.
func weightBytes(t *compute.Tensor) (int64, error) {
	// I2_S keeps one scale per tensor after its rows, which row-wise
	// kernels and row views cannot reach.
	if tt, _ := t.Type.Traits(); !gguf.CanDequantize(t.Type) || tt.TensorExtra != 0 {
		return 0, &Error{t.Name, fmt.Sprintf("type %s not supported", t.Type)}
	}
	rb, ok := t.Type.RowBytes(int64(t.Ne[0]))
	if !ok || t.Ne[0] <= 0 || t.Ne[1] <= 0 || t.Ne[2] != 1 {
		return 0, &Error{t.Name, fmt.Sprintf("shape %v does not fit type %s", t.Ne, t.Type)}
	}
	return rb * int64(t.Ne[1]), nil
}

// LoadWeight creates t's buffer and streams its bytes into it chunk by
// chunk; chunks need not be 4-byte aligned (a short tail is carried over).
func (b *Backend) LoadWeight(t *compute.Tensor, size int64, src compute.Stream) error {
	w, err := b.newWeight(t, size)
	if err != nil {
		return err
	}
	up := uploader{d: b.d, w: w, size: uint64(size), name: t.Name}
	if w.host != nil {
		up.host = w.host
	}
	if err := src(up.write); err != nil {
		w.release()
		return err
	}
	if err := up.finish(); err != nil {
		w.release()
		return err
	}
	return b.addWeight(w)
}

// newWeight validates t and size and returns t's place: the one
// PlanWeights gave it, or buffers of its own. Bindings are padded to 16
// bytes so that kernels reading 16-byte vectors stay inside them.
func (b *Backend) newWeight(t *compute.Tensor, size int64) (*weight, error) {
	if t == nil || t.Kind != compute.Weight {
		return nil, &Error{fmt.Sprint(t), "not a weight"}
	}
	want, err := weightBytes(t)
	if err != nil {
		return nil, err
	}
	if size != want {
		return nil, &Error{t.Name, fmt.Sprintf("%d bytes, shape %v of %s needs %d", size, t.Ne, t.Type, want)}
	}
	b.mu.Lock()
	_, dup := b.weights[t]
	w, planned := b.planned[t]
	closed := b.closed
	b.mu.Unlock()
	switch {
	case closed:
		return nil, &Error{t.Name, "backend closed"}
	case dup:
		return nil, &Error{t.Name, "loaded twice"}
	case planned:
		return w, nil
	}
	return b.placeAlone(t, size)
}

func (b *Backend) addWeight(w *weight) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		w.release()
		return &Error{w.t.Name, "backend closed"}
	}
	if _, dup := b.weights[w.t]; dup {
		w.release()
		return &Error{w.t.Name, "loaded twice"}
	}
	b.weights[w.t] = w
	delete(b.planned, w.t)
	for _, buf := range w.own {
		b.mem += int64(buf.Size())
	}
	return nil
}

// DefaultKVType is the KV cache element type of a new backend: f16, as
// llama.cpp's default cache (half the memory and the attention bytes of
// f32). Kernels read and write it packed two per u32 whether or not the
// device has shader-f16 (shaders Key.KV).
const DefaultKVType = gguf.TypeF16

// SetKVType sets the element type, f16 (DefaultKVType) or f32, of the
// caches allocated afterwards (AllocCache); a program takes its caches'
// type, which must be one for all of them.
func (b *Backend) SetKVType(t gguf.GGMLType) error {
	if t != gguf.TypeF16 && t != gguf.TypeF32 {
		return &Error{"kv", fmt.Sprintf("KV cache type %s: want f16 or f32", t)}
	}
	b.mu.Lock()
	b.kv = t
	b.mu.Unlock()
	return nil
}

// kvType is the element type AllocCache gives t: the backend's, but f32
// for an odd head size (f16 pairs would straddle rows).
func (b *Backend) kvType(t *compute.Tensor) gguf.GGMLType {
	b.mu.Lock()
	defer b.mu.Unlock()
	if t.Ne[0]%2 != 0 {
		return gguf.TypeF32
	}
	return b.kv
}

// CacheBytes is the size of the buffer AllocCache makes for the cache t
// (engine plans memory with it).
func (b *Backend) CacheBytes(t *compute.Tensor) int64 {
	return cacheBytes(t, b.kvType(t))
}

func cacheBytes(t *compute.Tensor, kv gguf.GGMLType) int64 {
	if kv == gguf.TypeF16 {
		return int64(t.Elems()) * 2
	}
	return int64(t.Elems()) * 4
}

// AllocCache creates a zeroed cache buffer of the backend's KV type
// (SetKVType; WebGPU zero-initializes).
func (b *Backend) AllocCache(t *compute.Tensor) error {
	if t == nil || t.Kind != compute.Cache || t.Elems() <= 0 {
		return &Error{fmt.Sprint(t), "not a cache tensor"}
	}
	kv := b.kvType(t)
	buf, err := b.d.CreateBuffer("kv:"+t.Name, uint64(cacheBytes(t, kv)), webgpu.UsageStorage|webgpu.UsageCopyDst|webgpu.UsageCopySrc)
	if err != nil {
		return err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if old, ok := b.caches[t]; ok {
		old.Destroy()
		b.mem -= int64(old.Size())
	}
	b.caches[t] = buf
	b.cacheKV[t] = kv
	b.mem += int64(buf.Size())
	return nil
}

// MemoryBytes is the GPU memory held for weights, caches and programs.
func (b *Backend) MemoryBytes() int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.mem
}

// Close destroys every buffer, and the device if Open made it.
func (b *Backend) Close() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return nil
	}
	b.closed = true
	for _, w := range b.weights {
		w.release()
		if w.f32 != nil {
			w.f32.Destroy()
		}
	}
	for _, a := range b.arenas {
		a.Destroy()
	}
	for _, c := range b.caches {
		c.Destroy()
	}
	for _, o := range b.ones {
		o.Destroy()
	}
	for _, p := range b.progs {
		p.destroy()
	}
	b.weights, b.planned, b.arenas, b.caches, b.cacheKV, b.ones, b.progs, b.mem = nil, nil, nil, nil, nil, nil, nil, 0
	if b.ownsDev {
		b.d.Close()
	}
	return nil
}

func pad16(n uint64) uint64 { return (n + 15) &^ 15 }

var _ compute.Backend = (*Backend)(nil)
