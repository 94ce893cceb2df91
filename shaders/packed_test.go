package shaders

import (
	"bytes"
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/webgguf/webgguf/gguf"
	"github.com/webgguf/webgguf/shaders/internal/ref"
	"github.com/webgguf/webgguf/webgpu"
)

// Pack and Unpack are inverse permutations that move every byte, and the
// layout's preconditions give typed errors.
func TestPackRoundTrip(t *testing.T) {
	r := newRand(t)
	for _, typ := range PackedTypes {
		K := 2 * packChunk * typ.BlockSize() // two chunks a row
		w := randWeights(t, r, typ, 3, K)
		p, err := Pack(typ, K, w)
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Equal(p, w) {
			t.Fatalf("%s: Pack left the bytes unchanged", typ)
		}
		// Scales are the last plane: block 1's f16 scale sits at 8·(TS-2)+2
		// (in a ggml block at 0, q6_K's d at 208).
		dOff := map[gguf.GGMLType]int{gguf.TypeQ6_K: 208}[typ]
		if got, want := p[8*(typ.TypeSize()-2)+2:][:2], w[typ.TypeSize()+dOff:][:2]; !bytes.Equal(got, want) {
			t.Fatalf("%s: packed scale of block 1 = %x, want %x", typ, got, want)
		}
		u, err := Unpack(typ, K, p)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(u, w) {
			t.Fatalf("%s: Unpack(Pack(w)) != w", typ)
		}
	}
	var le *LayoutError
	if _, err := Pack(gguf.TypeQ4_0, 224, make([]byte, 126)); !errors.As(err, &le) {
		t.Errorf("Pack with K = 224: err %v, want a LayoutError", err)
	}
	if _, err := Pack(gguf.TypeQ4_K, 256, make([]byte, 144)); !errors.As(err, &le) {
		t.Errorf("Pack of q4_K: err %v, want a LayoutError", err)
	}
	if _, err := Pack(gguf.TypeQ8_0, 256, make([]byte, 100)); !errors.As(err, &le) {
		t.Errorf("Pack of a partial row: err %v, want a LayoutError", err)
	}
	if Packable(gguf.TypeQ4_0, 2048) != true || !Packable(gguf.TypeQ4_0, 896) || Packable(gguf.TypeQ4_0, 224) || Packable(gguf.TypeF16, 2048) ||
		!Packable(gguf.TypeQ6_K, 4096) || Packable(gguf.TypeQ6_K, 1024) || Packable(gguf.TypeQ6_K, 1152) {
		t.Error("Packable disagrees with the layout's rule (q4_0/q8_0/q6_K, K a multiple of 8 blocks; q4_0/q8_0 also 8m+4)")
	}
	if Ragged(gguf.TypeQ4_0, 2048) || !Ragged(gguf.TypeQ8_0, 1152) || !Ragged(gguf.TypeQ4_0, 128) || Ragged(gguf.TypeQ6_K, 1152) {
		t.Error("Ragged disagrees with its rule (q4_0/q8_0 rows of 8m+4 blocks)")
	}
}

// Ragged rows (K = 128 mod 256: Gemma 3's 1152, Qwen2.5-0.5B's 896): Pack
// and Unpack are inverse, every block's quants land 16-byte aligned on
// rows that start on and off the 16-byte grid, and each block's scale and
// quants are its own (checked against the ggml bytes, not Pack's map).
func TestPackRagged(t *testing.T) {
	r := newRand(t)
	for _, typ := range []gguf.GGMLType{gguf.TypeQ4_0, gguf.TypeQ8_0} {
		for _, K := range []int{128, 896, 1152} {
			rows := 5
			w := randWeights(t, r, typ, rows, K)
			p, err := Pack(typ, K, w)
			if err != nil {
				t.Fatal(err)
			}
			u, err := Unpack(typ, K, p)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(u, w) {
				t.Fatalf("%s K=%d: Unpack(Pack(w)) != w", typ, K)
			}
			ts, nb := typ.TypeSize(), K/32
			rb := nb * ts
			for row := 0; row < rows; row++ {
				// Block u lies in the first chunk (4 blocks) or in chunk
				// 1 + (u-4)/8 (8 blocks); find its quants by content.
				for u := 0; u < nb; u++ {
					c, j, n := row*rb, u, 4
					if u >= 4 {
						c, j, n = row*rb+4*ts+(u-4)/8*8*ts, (u-4)%8, 8
					}
					lead := (16 - c%16) % 16
					q := c + lead + 16*j
					if q%16 != 0 {
						t.Fatalf("%s K=%d row %d block %d: quants at %d, not 16-byte aligned", typ, K, row, u, q)
					}
					src := row*rb + u*ts
					if !bytes.Equal(p[q:q+16], w[src+2:src+18]) {
						t.Fatalf("%s K=%d row %d block %d: quants are not the block's", typ, K, row, u)
					}
					if typ == gguf.TypeQ8_0 && !bytes.Equal(p[q+16*n:q+16*n+16], w[src+18:src+34]) {
						t.Fatalf("%s K=%d row %d block %d: high quants are not the block's", typ, K, row, u)
					}
					sc := c + 2*j
					if 2*j >= lead {
						sc += n * (ts - 2)
					}
					if !bytes.Equal(p[sc:sc+2], w[src:src+2]) {
						t.Fatalf("%s K=%d row %d block %d: scale is not the block's", typ, K, row, u)
					}
				}
			}
		}
	}
}

// gpuPack rewrites w on the GPU with the repack kernel and checks the
// result against Pack; it returns the GPU's bytes.
func gpuPack(t *testing.T, f16 bool, typ gguf.GGMLType, rows, K int, w []byte) []byte {
	t.Helper()
	d := gpus(t)[f16]
	key, params, ok := RepackFor(typ, rows, K)
	if !ok {
		t.Fatalf("%s rows of %d: not packable", typ, K)
	}
	key.F16 = f16
	out := launch(t, d, key, params, Shape{N: int(params.Chunks)}, w)
	want, err := Pack(typ, K, w)
	if err != nil {
		t.Fatal(err)
	}
	if got := out[0][:len(w)]; !bytes.Equal(got, want) {
		for i := range want {
			if got[i] != want[i] {
				t.Fatalf("repack %s: byte %d = %#x, want %#x", typ, i, got[i], want[i])
			}
		}
	}
	return out[0][:len(w)]
}

// Every kernel that reads weights, on weights packed by the GPU repack
// kernel, against the float64 reference of the original ggml bytes.
func TestPackedKernels(t *testing.T) {
	r := newRand(t)
	for f16, d := range gpus(t) {
		for _, typ := range PackedTypes {
			// 37 rows: chunks of the last rows straddle nothing, rows are whole
			// (three chunks of q4_0/q8_0, one of q6_K).
			K := 768
			if typ == gguf.TypeQ6_K {
				K = 2048
			}
			checkPacked(t, r, d, f16, typ, 37, K, true)
			if Ragged(typ, 1152) {
				// Ragged rows (Gemma 3's K): odd rows start off the grid.
				checkPacked(t, r, d, f16, typ, 37, 1152, true)
			}
		}
		// Ragged rows (K 1152) beside a format without a packed layout.
		checkPackedQKV(t, r, d, f16, 1152, gguf.TypeQ4_0, gguf.TypeQ8_0, gguf.TypeQ5_0)
		// Fused QKV with packed and unpacked formats side by side (q6_K is
		// not packable at K = 512 and read in ggml order by the packed
		// kernel), and with two packed q6_K matrices (renamed helpers).
		checkPackedQKV(t, r, d, f16, 512, gguf.TypeQ4_0, gguf.TypeQ8_0, gguf.TypeQ6_K)
		checkPackedQKV(t, r, d, f16, 2048, gguf.TypeQ4_0, gguf.TypeQ6_K, gguf.TypeQ6_K)
		// Q4_K_M's mix: no smaller-chunk format, so no ggml-order branch.
		checkPackedQKV(t, r, d, f16, 2048, gguf.TypeQ4_K, gguf.TypeQ4_K, gguf.TypeQ6_K)
	}
}

// checkPacked runs matvec (several shapes), SwiGLU with the fused norm,
// get_rows and (with matmul) the prefill matmul on N×K weights of typ
// packed by the GPU, against the float64 reference.
func checkPacked(t *testing.T, r *rand.Rand, d *webgpu.Device, f16 bool, typ gguf.GGMLType, N, K int, matmul bool) {
	t.Helper()
	const eps = 1e-5
	raw := randWeights(t, r, typ, N, K)
	w := gpuPack(t, f16, typ, N, K, raw)
	wd, err := ref.Dequant(typ, raw, N*K)
	if err != nil {
		t.Fatal(err)
	}
	x := randVec(r, K, 0.1, 1)
	want, mag := ref.Matvec(wd, ref.Widen(x), N, K)
	for _, c := range []struct{ wg, rows, rpt int }{{0, 0, 0}, {128, 8, 2}, {32, 4, 4}, {64, 1, 1}, {256, 16, 4}} {
		key := Key{Op: OpMatvec, Weight: typ, F16: f16, WG: c.wg, Rows: c.rows, RPT: c.rpt, Packed: true, Ragged: Ragged(typ, K)}
		out := launch(t, d, key, MatvecParams{K: uint32(K), N: uint32(N)}, Shape{N: N}, w, f32Bytes(x), poison(4*N))
		checkClose(t, key.String(), bytesF32(out[2]), want, relTol(mag, matvecRel, 1e-6))
	}

	// SwiGLU with the fused norm.
	rawU := randWeights(t, r, typ, N, K)
	wu := gpuPack(t, f16, typ, N, K, rawU)
	wud, err := ref.Dequant(typ, rawU, N*K)
	if err != nil {
		t.Fatal(err)
	}
	nw := randVec(r, K, 0.2, 2)
	xn := normRef(x, nw, eps)
	g, magG := ref.Matvec(wd, xn, N, K)
	up, magU := ref.Matvec(wud, xn, N, K)
	sw, tol := make([]float64, N), make([]float64, N)
	for i := range sw {
		sw[i] = ref.SiLU(g[i]) * up[i]
		tol[i] = 2*matvecRel*(1.1*magG[i]*absf(up[i])+absf(ref.SiLU(g[i]))*magU[i]) + 1e-6
	}
	key := Key{Op: OpMatvec, Weight: typ, F16: f16, SwiGLU: true, Norm: true, Packed: true, Ragged: Ragged(typ, K)}
	out := launch(t, d, key, MatvecParams{K: uint32(K), N: uint32(N), Eps: eps}, Shape{N: N},
		w, f32Bytes(x), poison(4*N), wu, f32Bytes(nw))
	checkClose(t, key.String(), bytesF32(out[2]), sw, tol)

	// get_rows (tied embeddings read the lm head's packed bytes).
	ids := []uint32{3, 0, 36, 3, 99}
	gr := launch(t, d, Key{Op: OpGetRows, Weight: typ, F16: f16, Packed: true, Ragged: Ragged(typ, K)},
		GetRowsParams{K: uint32(K), M: uint32(len(ids)), Rows: uint32(N)}, Shape{M: len(ids), K: K},
		w, u32Bytes(ids), poison(4*K*len(ids)))
	var wantRows, tolRows []float64
	for _, id := range ids {
		row := make([]float64, K)
		if int(id) < N {
			copy(row, wd[int(id)*K:])
		}
		wantRows = append(wantRows, row...)
	}
	for _, v := range wantRows {
		tolRows = append(tolRows, 1e-6*math.Abs(v))
	}
	checkClose(t, name("get_rows packed ", typ, " f16=", f16), bytesF32(gr[2]), wantRows, tolRows)
	if !matmul {
		return
	}

	// Prefill matmul.
	M := 19
	xm := randVec(r, M*K, 0.1, 1)
	wantM, magM := ref.Matmul(wd, ref.Widen(xm), M, N, K)
	mm := launch(t, d, Key{Op: OpMatmul, Weight: typ, F16: f16, Packed: true, Ragged: Ragged(typ, K), TM: 64, TN: 64, TK: 16},
		MatmulParams{M: uint32(M), N: uint32(N), K: uint32(K)}, Shape{M: M, N: N}, w, f32Bytes(xm), poison(4*M*N))
	checkClose(t, name("matmul packed ", typ, " f16=", f16), bytesF32(mm[2]), wantM, relTol(magM, matvecRel, 1e-6))
}

// checkPackedQKV runs the fused QKV matvec (Key.Packed) on three matrices
// of the given formats with rows of K, each packed by the GPU where
// Packable and left in ggml order otherwise.
func checkPackedQKV(t *testing.T, r *rand.Rand, d *webgpu.Device, f16 bool, K int, types ...gguf.GGMLType) {
	t.Helper()
	ns := []int{64, 16, 24}
	x := randVec(r, K, 0.1, 1)
	var raws, ws [][]byte
	for i, typ := range types {
		raws = append(raws, randWeights(t, r, typ, ns[i], K))
		w := raws[i]
		if Packable(typ, K) {
			w = gpuPack(t, f16, typ, ns[i], K, w)
		}
		ws = append(ws, w)
	}
	key := Key{Op: OpMatvecQKV, Weight: types[0], WeightK: types[1], WeightV: types[2], F16: f16, Packed: true,
		Ragged: Ragged(types[0], K) || Ragged(types[1], K) || Ragged(types[2], K)}
	out := launch(t, d, key, MatvecQKVParams{K: uint32(K), Nq: uint32(ns[0]), Nk: uint32(ns[1]), Nv: uint32(ns[2])},
		Shape{N: ns[0] + ns[1] + ns[2]}, ws[0], f32Bytes(x), poison(4*ns[0]), ws[1], poison(4*ns[1]), ws[2], poison(4*ns[2]))
	for i, oi := range []int{2, 4, 6} {
		wd, err := ref.Dequant(types[i], raws[i], ns[i]*K)
		if err != nil {
			t.Fatal(err)
		}
		want, mag := ref.Matvec(wd, ref.Widen(x), ns[i], K)
		checkClose(t, name(key.String(), " matrix ", i), bytesF32(out[oi]), want, relTol(mag, matvecRel, 1e-6))
	}
}

// Build keeps Packed only where a weight of the key has a packed layout.
func TestPackedKeys(t *testing.T) {
	k, err := Build(Key{Op: OpMatvec, Weight: gguf.TypeQ4_K, Packed: true})
	if err != nil {
		t.Fatal(err)
	}
	if k.Key.Packed {
		t.Error("Packed kept for q4_K, which has no packed layout")
	}
	k, err = Build(Key{Op: OpMatvecQKV, Weight: gguf.TypeQ4_K, WeightK: gguf.TypeQ4_K, WeightV: gguf.TypeQ8_0, Packed: true})
	if err != nil {
		t.Fatal(err)
	}
	if !k.Key.Packed {
		t.Error("Packed dropped for a QKV key whose V matrix is q8_0")
	}
	var ke *KeyError
	if _, err := Build(Key{Op: OpRepack, Weight: gguf.TypeQ4_K}); !errors.As(err, &ke) {
		t.Errorf("repack of q4_K: err %v, want a KeyError", err)
	}
	// q6_K's ggml-order branch only where a smaller-chunk format shares the key.
	for _, c := range []struct {
		key    Key
		branch bool
	}{
		{Key{Op: OpMatvec, Weight: gguf.TypeQ6_K, Packed: true}, false},
		{Key{Op: OpMatvecQKV, Weight: gguf.TypeQ4_K, WeightK: gguf.TypeQ4_K, WeightV: gguf.TypeQ6_K, Packed: true}, false},
		{Key{Op: OpMatvecQKV, Weight: gguf.TypeQ8_0, WeightK: gguf.TypeQ8_0, WeightV: gguf.TypeQ6_K, Packed: true}, true},
	} {
		k, err := Build(c.key)
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Contains(k.WGSL, "p.K & 2047u"); got != c.branch {
			t.Errorf("%s: ggml-order branch %t, want %t", c.key, got, c.branch)
		}
	}
}

// Key.XU: x staged several unit steps per barrier round, over several
// rounds with a partial last one, for matvec and matvec_qkv.
func TestMatvecXU(t *testing.T) {
	r := newRand(t)
	for f16, d := range gpus(t) {
		for _, c := range []struct {
			typ          gguf.GGMLType
			K            int
			packed       bool
			wg, rows, xu int
			norm, swiglu bool
		}{
			{gguf.TypeQ4_0, 3200, false, 0, 0, 0, false, false},   // 100 units, XU = T = 32: 4 rounds, the last partial
			{gguf.TypeQ4_0, 3328, true, 64, 8, 64, true, false},   // T 16, XU 64: 4 steps a round
			{gguf.TypeQ8_0, 3328, true, 128, 16, 64, false, true}, // 104 units: 2 rounds, the last partial
			{gguf.TypeQ4_K, 3328, false, 256, 16, 64, true, false},
		} {
			N, K := 21, c.K
			w := randWeights(t, r, c.typ, N, K)
			wd, err := ref.Dequant(c.typ, w, N*K)
			if err != nil {
				t.Fatal(err)
			}
			if c.packed {
				w = gpuPack(t, f16, c.typ, N, K, w)
			}
			x := randVec(r, K, 0.5, 2)
			nw := randVec(r, K, 0.2, 2)
			xr := ref.Widen(x)
			if c.norm {
				xr = normRef(x, nw, 1e-5)
			}
			want, mag := ref.Matvec(wd, xr, N, K)
			tol := relTol(mag, matvecRel, 1e-6)
			key := Key{Op: OpMatvec, Weight: c.typ, F16: f16, WG: c.wg, Rows: c.rows, RPT: 2, XU: c.xu, Packed: c.packed, Norm: c.norm}
			if c.rows == 0 {
				key.RPT = 0
			}
			bufs := [][]byte{w, f32Bytes(x), poison(4 * N)}
			if c.swiglu {
				// The same matrix as gate and up: y = silu(g)·g.
				key.SwiGLU = true
				bufs = append(bufs, w)
				for i := range want {
					g := want[i]
					want[i] = ref.SiLU(g) * g
					tol[i] = 3 * tol[i] * (1 + absf(g))
				}
			}
			if c.norm {
				bufs = append(bufs, f32Bytes(nw))
			}
			out := launch(t, d, key, MatvecParams{K: uint32(K), N: uint32(N), Eps: 1e-5}, Shape{N: N}, bufs...)
			checkClose(t, key.String(), bytesF32(out[2]), want, tol)

			// matvec_qkv with the same matrix three times, XU as above.
			qk := Key{Op: OpMatvecQKV, Weight: c.typ, WeightK: c.typ, WeightV: c.typ, F16: f16, XU: c.xu, Packed: c.packed}
			if c.wg != 0 {
				qk.WG, qk.Rows, qk.RPT = c.wg, c.rows, 2
			}
			if c.swiglu || c.norm {
				continue
			}
			out = launch(t, d, qk, MatvecQKVParams{K: uint32(K), Nq: uint32(N - 1), Nk: 0, Nv: 1},
				Shape{N: N}, w, f32Bytes(x), poison(4*N), w, poison(16), w, poison(16))
			checkClose(t, qk.String(), bytesF32(out[2])[:N-1], want[:N-1], tol[:N-1])
		}
	}
}
