package gpu

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"strings"

	"github.com/webgguf/webgguf/compute"
	"github.com/webgguf/webgguf/gguf"
	"github.com/webgguf/webgguf/webgpu"
)

var _ compute.CacheShifter = (*Backend)(nil)

// shiftWGSL moves rows of one cache and rotates them when they are keys
// (compute.CacheShifter). One invocation writes one 32-bit word of a
// destination row: two f16 elements (an f16 cache is read and written as
// packed pairs, so no two invocations share a word) or one f32 element.
// The host passes the rotation as a table of cos/sin per rotated pair,
// computed in float64: every row of a shift moves by the same distance,
// and a GPU's sin of large angles is loosely specified. Source and
// destination rows of one dispatch never overlap (ShiftCache splits a
// move into chunks no longer than its distance), so reads see the old rows.
const shiftWGSL = `
struct P {
  src: u32, dst: u32, n: u32, dim: u32,
  length: u32, heads: u32, nrot: u32, mode: u32, // mode 0: move only, 1: normal pairs, 2: neox
}
@group(0) @binding(0) var<uniform> p: P;
@group(0) @binding(1) var<storage, read_write> cache: array<ELEM>;
@group(0) @binding(2) var<storage, read> cs: array<vec2<f32>>;

fn rotated(base: u32, e: u32) -> f32 {
  if (p.mode == 0u || e >= p.nrot) {
    return load(base + e);
  }
  let hf = p.nrot / 2u;
  var a: u32; var b: u32; var j: u32;
  if (p.mode == 1u) {
    j = e / 2u; a = 2u * j; b = a + 1u;
  } else {
    j = e % hf; a = j; b = j + hf;
  }
  let x0 = load(base + a);
  let x1 = load(base + b);
  let c = cs[j];
  if (e == a) {
    return x0 * c.x - x1 * c.y;
  }
  return x0 * c.y + x1 * c.x;
}

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let per = p.dim / PER;  // words per row
  let i = gid.x + gid.y * nwg.x * 64u;
  if (i >= p.heads * p.n * per) {
    return;
  }
  let w = i % per;
  let r = (i / per) % p.n;
  let h = i / (per * p.n);
  let src0 = (h * p.length + p.src + r) * p.dim;
  let dst0 = (h * p.length + p.dst + r) * p.dim;
  STORE
}
`

// shiftSource specializes shiftWGSL for f16 or f32 caches.
func shiftSource(f16 bool) string {
	r := map[string]string{}
	if f16 {
		r["ELEM"] = "u32"
		r["PER"] = "2u"
		r["STORE"] = `let e = 2u * w;
  cache[(dst0 + e) / 2u] = pack2x16float(vec2<f32>(rotated(src0, e), rotated(src0, e + 1u)));`
	} else {
		r["ELEM"] = "f32"
		r["PER"] = "1u"
		r["STORE"] = `cache[dst0 + w] = rotated(src0, w);`
	}
	src := shiftWGSL
	for k, v := range r {
		src = strings.ReplaceAll(src, k, v)
	}
	if f16 {
		src += "fn load(i: u32) -> f32 { let v = unpack2x16float(cache[i / 2u]); if ((i & 1u) == 0u) { return v.x; } return v.y; }\n"
	} else {
		src += "fn load(i: u32) -> f32 { return cache[i]; }\n"
	}
	return src
}

// ShiftCache moves rows src..src+n-1 of cache t to dst..dst+n-1, rotating
// them by RoPE at position dst−src when rope is not nil
// (compute.CacheShifter). It waits for the device to finish.
func (b *Backend) ShiftCache(t *compute.Tensor, src, dst, n int, rope *compute.RopeParams, freqs *compute.Tensor) error {
	b.mu.Lock()
	buf, ok := b.caches[t]
	b.mu.Unlock()
	if !ok {
		return &Error{fmt.Sprint(t), "shift: not an allocated cache"}
	}
	dim, length, heads := t.Ne[0], t.Ne[1], t.Ne[2]
	switch {
	case t.Ring:
		return &Error{t.Name, "shift: a ring cache"}
	case n < 0 || dst < 0 || dst >= src || src+n > length:
		return &Error{t.Name, fmt.Sprintf("shift: rows %d..%d to %d outside %d rows", src, src+n, dst, length)}
	case n == 0:
		return nil
	}
	f16 := b.kvType(t) == gguf.TypeF16
	mode, nrot := uint32(0), 0
	table := make([]byte, 8) // one entry at least: a binding cannot be empty
	if rope != nil {
		nrot = rope.NRot
		if nrot <= 0 || nrot > dim || nrot%2 != 0 {
			return &Error{t.Name, fmt.Sprintf("shift: %d rotated dimensions for head size %d", nrot, dim)}
		}
		mode = 1
		if rope.Mode == compute.RopeNeox {
			mode = 2
		}
		var f []float32
		if freqs != nil {
			raw, err := ReadWeight(context.Background(), b, freqs)
			if err != nil {
				return err
			}
			if f, err = gguf.Dequantize(freqs.Type, raw, freqs.Ne[0]); err != nil {
				return &Error{freqs.Name, err.Error()}
			}
			if len(f) < nrot/2 {
				return &Error{freqs.Name, fmt.Sprintf("shift: %d frequency factors for %d pairs", len(f), nrot/2)}
			}
		}
		table = make([]byte, 8*(nrot/2))
		for j := range nrot / 2 {
			theta := float64(dst-src) * float64(rope.Scale) * math.Pow(float64(rope.Base), -2*float64(j)/float64(nrot))
			if f != nil {
				theta /= float64(f[j])
			}
			sin, cos := math.Sincos(theta)
			m := float64(rope.Mscale())
			binary.LittleEndian.PutUint32(table[8*j:], math.Float32bits(float32(cos*m)))
			binary.LittleEndian.PutUint32(table[8*j+4:], math.Float32bits(float32(sin*m)))
		}
	}
	if f16 && dim%2 != 0 {
		return &Error{t.Name, "shift: an f16 cache with an odd head size"}
	}
	key := "kv_shift_f32"
	if f16 {
		key = "kv_shift_f16"
	}
	pipe, err := b.d.CachedComputePipeline(key, key, shiftSource(f16), "main", []webgpu.BindingKind{webgpu.Uniform, webgpu.Storage, webgpu.ReadOnlyStorage})
	if err != nil {
		return err
	}
	var tmp []*webgpu.Buffer
	defer func() {
		for _, u := range tmp {
			u.Destroy()
		}
	}()
	cs, err := b.d.CreateBuffer("kv-shift-table", uint64(len(table)), webgpu.UsageStorage|webgpu.UsageCopyDst)
	if err != nil {
		return err
	}
	tmp = append(tmp, cs)
	if err := b.d.WriteBuffer(cs, 0, table); err != nil {
		return err
	}
	per := 1
	if f16 {
		per = 2
	}
	tape := b.d.NewTape()
	d := src - dst
	for c := 0; c < n; c += d {
		rows := min(d, n-c)
		pb := make([]byte, 32)
		for i, v := range []int{src + c, dst + c, rows, dim, length, heads, nrot, int(mode)} {
			binary.LittleEndian.PutUint32(pb[4*i:], uint32(v))
		}
		u, err := b.d.CreateBuffer("kv-shift-params", uint64(len(pb)), webgpu.UsageUniform|webgpu.UsageCopyDst)
		if err != nil {
			return err
		}
		tmp = append(tmp, u)
		if err := b.d.WriteBuffer(u, 0, pb); err != nil {
			return err
		}
		bg, err := b.d.CreateBindGroup(pipe, []webgpu.Binding{{Buffer: u}, {Buffer: buf}, {Buffer: cs}})
		if err != nil {
			return err
		}
		groups := (heads*rows*(dim/per) + 63) / 64
		x, y := groups, 1
		if x > 65535 {
			x, y = 65535, (groups+65534)/65535
		}
		tape.Dispatch(pipe, bg, uint32(x), uint32(y), 1)
	}
	ctx := context.Background()
	if err := tape.Run(ctx); err != nil {
		return err
	}
	// Wait for the move before the parameter buffers are destroyed.
	_, err = b.d.ReadBuffer(ctx, buf, 0, 4)
	return err
}

var _ compute.CacheIO = (*Backend)(nil)

// ReadCache reads rows 0..n-1 of each head of cache t back as f32
// (compute.CacheIO).
func (b *Backend) ReadCache(t *compute.Tensor, n int) ([]float32, error) {
	b.mu.Lock()
	buf, ok := b.caches[t]
	b.mu.Unlock()
	dim, length, heads := t.Ne[0], t.Ne[1], t.Ne[2]
	if !ok || n < 0 || n > length {
		return nil, &Error{fmt.Sprint(t), fmt.Sprintf("read %d rows: not an allocated cache of that length", n)}
	}
	es := 4
	f16 := b.kvType(t) == gguf.TypeF16
	if f16 {
		es = 2
	}
	out := make([]float32, 0, heads*n*dim)
	if n == 0 {
		return out, nil
	}
	for h := range heads {
		raw, err := b.d.ReadBuffer(context.Background(), buf, uint64(h*length*dim*es), uint64(n*dim*es))
		if err != nil {
			return nil, err
		}
		for i := range n * dim {
			if f16 {
				out = append(out, gguf.F16ToF32(binary.LittleEndian.Uint16(raw[2*i:])))
			} else {
				out = append(out, math.Float32frombits(binary.LittleEndian.Uint32(raw[4*i:])))
			}
		}
	}
	return out, nil
}

// WriteCache writes rows 0..n-1 of each head of cache t, rounding to f16
// where the cache is (compute.CacheIO).
func (b *Backend) WriteCache(t *compute.Tensor, n int, data []float32) error {
	b.mu.Lock()
	buf, ok := b.caches[t]
	b.mu.Unlock()
	dim, length, heads := t.Ne[0], t.Ne[1], t.Ne[2]
	if !ok || n < 0 || n > length || len(data) != heads*n*dim {
		return &Error{fmt.Sprint(t), fmt.Sprintf("write %d rows (%d values): not an allocated cache of that shape", n, len(data))}
	}
	f16 := b.kvType(t) == gguf.TypeF16
	es := 4
	if f16 {
		es = 2
	}
	if n == 0 {
		return nil
	}
	raw := make([]byte, n*dim*es)
	for h := range heads {
		for i, v := range data[h*n*dim : (h+1)*n*dim] {
			if f16 {
				binary.LittleEndian.PutUint16(raw[2*i:], gguf.F32ToF16(v))
			} else {
				binary.LittleEndian.PutUint32(raw[4*i:], math.Float32bits(v))
			}
		}
		if err := b.d.WriteBuffer(buf, uint64(h*length*dim*es), raw); err != nil {
			return err
		}
	}
	return nil
}
