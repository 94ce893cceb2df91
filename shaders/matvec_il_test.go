package shaders

import (
	"bytes"
	"testing"

	"github.com/webgguf/webgguf/gguf"
	"github.com/webgguf/webgguf/shaders/internal/ref"
)

// Interleave and Deinterleave are inverses, and Interleave moves whole
// vectors to v·g + r of their group (g the group's row count).
func TestInterleaveRoundTrip(t *testing.T) {
	r := newRand(t)
	for _, c := range []struct{ n, rowBytes, il int }{{37, 144, 8}, {64, 32, 32}, {5, 16, 8}, {100, 288, 32}} {
		raw := make([]byte, c.n*c.rowBytes)
		for i := range raw {
			raw[i] = byte(r.IntN(256))
		}
		il, err := Interleave(raw, c.n, c.rowBytes, c.il)
		if err != nil {
			t.Fatal(err)
		}
		// Row 1, vector 1 of the first group lands at vector 1·g + 1.
		g := min(c.il, c.n)
		if c.rowBytes >= 32 && g > 1 {
			if !bytes.Equal(il[(g+1)*16:(g+2)*16], raw[c.rowBytes+16:c.rowBytes+32]) {
				t.Errorf("%+v: row 1 vector 1 not at vector g+1", c)
			}
		}
		back, err := Deinterleave(il, c.n, c.rowBytes, c.il)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(back, raw) {
			t.Errorf("%+v: round trip changed the bytes", c)
		}
	}
	if _, err := Interleave(make([]byte, 18*3), 3, 18, 8); err == nil {
		t.Error("rows of 18 bytes interleaved without error")
	}
}

// The interleaved matvec (matvec_il.wgsl) on every format it takes, packed
// where the format has a layout, against the float64 matvec: one and
// several slices per row, one and several row groups per workgroup, a
// short last group (N not a multiple of the group) and groups past N,
// several x rounds (XU below K/32), the fused norm, bias and residual.
func TestMatvecInterleaved(t *testing.T) {
	r := newRand(t)
	const eps = 1e-5
	for f16, d := range gpus(t) {
		for _, typ := range []gguf.GGMLType{gguf.TypeQ4_0, gguf.TypeQ8_0, gguf.TypeQ4_K, gguf.TypeQ6_K} {
			K := 2048 // q6_K packs at multiples of 2048
			for _, c := range []struct {
				il, wg, rpt, xu, n int
				norm, epi          bool
			}{{32, 0, 0, 0, 100, false, false}, {16, 64, 1, 16, 37, true, false}, {8, 16, 2, 32, 64, false, true},
				{64, 128, 1, 0, 130, true, true}, {16, 64, 4, 32, 150, false, false}, {8, 32, 8, 0, 61, true, true}} {
				N := c.n
				raw := randWeights(t, r, typ, N, K)
				w, err := packIf(Key{Packed: true, Weight: typ}, K, raw)
				if err != nil {
					t.Fatal(err)
				}
				rowBytes, _ := typ.RowBytes(int64(K))
				if w, err = Interleave(w, N, int(rowBytes), c.il); err != nil {
					t.Fatal(err)
				}
				wd, err := ref.Dequant(typ, raw, N*K)
				if err != nil {
					t.Fatal(err)
				}
				x := randVec(r, K, 0.1, 1)
				xn := ref.Widen(x)
				var nw []float32
				if c.norm {
					x = randVec(r, K, 0.5, 8)
					nw = randVec(r, K, 0.2, 2)
					xn = normRef(x, nw, eps)
				}
				want, mag := ref.Matvec(wd, xn, N, K)
				tol := relTol(mag, matvecRel, 1e-6)
				key := Key{Op: OpMatvec, Weight: typ, F16: f16, Packed: true, Interleave: c.il, WG: c.wg, RPT: c.rpt, XU: c.xu, Norm: c.norm}
				bufs := [][]byte{w, f32Bytes(x), poison(4 * N)}
				if c.epi {
					key.Bias, key.Residual = true, true
					bias, res := randVec(r, N, 0.1, 2), randVec(r, N, 0.1, 2)
					bufs = append(bufs, f32Bytes(bias), f32Bytes(res))
					for i := range want {
						want[i] += float64(bias[i]) + float64(res[i])
						tol[i] += 1e-6
					}
				}
				if c.norm {
					bufs = append(bufs, f32Bytes(nw))
				}
				out := launch(t, d, key, MatvecParams{K: uint32(K), N: uint32(N), Eps: eps}, Shape{N: N}, bufs...)
				checkClose(t, key.String(), bytesF32(out[2]), want, tol)
			}
		}
	}
}

// packIf as bench-kernels uses it: the packed layout where the key asks
// for it and the format and K allow.
func packIf(key Key, k int, w []byte) ([]byte, error) {
	if !key.Packed || !Packable(key.Weight, k) {
		return w, nil
	}
	return Pack(key.Weight, k, w)
}
