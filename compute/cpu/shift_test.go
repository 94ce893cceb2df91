package cpu

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/webgguf/webgguf/compute"
	"github.com/webgguf/webgguf/compute/computetest"
)

// TestShiftCacheMatchesFloat64: random keys stored at their RoPE'd
// positions, shifted down by d, equal RoPE at the new positions computed
// in float64 from the unrotated vectors; values are moved unchanged, rows
// before dst untouched. Both rope modes, partial rotation, frequency
// factors, overlapping and disjoint moves.
func TestShiftCacheMatchesFloat64(t *testing.T) {
	const dim, heads, length = 16, 3, 40
	rng := rand.New(rand.NewPCG(7, 34))
	cases := []struct {
		name           string
		mode           compute.RopeMode
		nrot           int
		freqs          bool
		src, dst, rows int
	}{
		{"normal overlap", compute.RopeNormal, 16, false, 10, 4, 25},
		{"neox disjoint partial", compute.RopeNeox, 8, false, 30, 5, 9},
		{"normal freqs", compute.RopeNormal, 16, true, 21, 1, 19},
		{"neox freqs overlap", compute.RopeNeox, 12, true, 7, 6, 30},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			b := New(1)
			k := compute.NewCache("cache_k", dim, length, heads)
			v := compute.NewCache("cache_v", dim, length, heads)
			if err := b.AllocCache(k); err != nil {
				t.Fatal(err)
			}
			if err := b.AllocCache(v); err != nil {
				t.Fatal(err)
			}
			p := compute.RopeParams{Mode: tc.mode, NHeads: heads, HeadDim: dim, NRot: tc.nrot, Base: 10000, Scale: 0.5}
			var fw *compute.Tensor
			var f []float32
			if tc.freqs {
				f, fw = computetest.RopeFreqs(t, b, rng, tc.nrot)
			}
			// raw[h][pos] is the unrotated key; the cache holds it rotated
			// to pos (in float64, then rounded), V holds random values.
			raw := make([][][]float64, heads)
			kc, vc := b.caches[k], b.caches[v]
			for h := range heads {
				raw[h] = make([][]float64, length)
				for pos := range length {
					x := make([]float64, dim)
					for i := range x {
						x[i] = rng.NormFloat64()
						vc[(h*length+pos)*dim+i] = float32(rng.NormFloat64())
					}
					raw[h][pos] = x
					for i, r := range computetest.Rope64(x, p, f, pos) {
						kc[(h*length+pos)*dim+i] = float32(r)
					}
				}
			}
			vBefore := append([]float32(nil), vc...)
			kBefore := append([]float32(nil), kc...)
			if err := b.ShiftCache(k, tc.src, tc.dst, tc.rows, &p, fw); err != nil {
				t.Fatal(err)
			}
			if err := b.ShiftCache(v, tc.src, tc.dst, tc.rows, nil, nil); err != nil {
				t.Fatal(err)
			}
			d := tc.src - tc.dst
			var worst float64
			for h := range heads {
				for r := range length {
					off := (h*length + r) * dim
					if r < tc.dst || r >= tc.dst+tc.rows {
						for i := range dim {
							if kc[off+i] != kBefore[off+i] || vc[off+i] != vBefore[off+i] {
								t.Fatalf("head %d row %d outside the move changed", h, r)
							}
						}
						continue
					}
					want := computetest.Rope64(raw[h][r+d], p, f, r)
					for i := range dim {
						worst = max(worst, math.Abs(float64(kc[off+i])-want[i]))
						if vc[off+i] != vBefore[((h*length)+r+d)*dim+i] {
							t.Fatalf("head %d row %d: value %d not moved from row %d", h, r, i, r+d)
						}
					}
				}
			}
			// f32 rotation of an f32-rounded key: a few ulps of values ~3.
			if worst > 2e-5 {
				t.Fatalf("keys differ from float64 RoPE at the new positions by %g", worst)
			}
		})
	}
}

// TestShiftCacheRefusesBadRanges: out-of-range moves and ring caches are
// errors, not panics.
func TestShiftCacheRefusesBadRanges(t *testing.T) {
	b := New(1)
	k := compute.NewCache("cache_k", 8, 16, 2)
	ring := compute.NewRingCache("cache_k", 8, 16, 2)
	for _, c := range []*compute.Tensor{k, ring} {
		if err := b.AllocCache(c); err != nil {
			t.Fatal(err)
		}
	}
	for _, r := range [][3]int{{4, 4, 2}, {4, 6, 2}, {10, 2, 7}, {3, -1, 2}, {3, 1, -1}} {
		if err := b.ShiftCache(k, r[0], r[1], r[2], nil, nil); err == nil {
			t.Errorf("src %d dst %d rows %d: no error", r[0], r[1], r[2])
		}
	}
	if err := b.ShiftCache(ring, 4, 2, 2, nil, nil); err == nil {
		t.Error("ring cache: no error")
	}
	if err := b.ShiftCache(compute.NewCache("x", 8, 16, 2), 4, 2, 2, nil, nil); err == nil {
		t.Error("unallocated cache: no error")
	}
}
