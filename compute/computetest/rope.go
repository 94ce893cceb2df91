package computetest

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/webgguf/webgguf/compute"
	"github.com/webgguf/webgguf/gguf"
)

// Rope64 rotates one head vector x to position pos in float64: pair j of
// the first p.NRot values ((2j, 2j+1), or (j, j+NRot/2) in NeoX mode) turns
// by pos·Scale·Base^(−2j/NRot), divided by freqs[j] when freqs is set.
// RoPE at q−d of an unrotated key is what a key shifted from q by d holds.
func Rope64(x []float64, p compute.RopeParams, freqs []float32, pos int) []float64 {
	out := append([]float64(nil), x...)
	half := p.NRot / 2
	for j := range half {
		theta := float64(pos) * float64(p.Scale) * math.Pow(float64(p.Base), -2*float64(j)/float64(p.NRot))
		if freqs != nil {
			theta /= float64(freqs[j])
		}
		sin, cos := math.Sincos(theta)
		a, b := 2*j, 2*j+1
		if p.Mode == compute.RopeNeox {
			a, b = j, j+half
		}
		out[a] = x[a]*cos - x[b]*sin
		out[b] = x[a]*sin + x[b]*cos
	}
	return out
}

// RopeFreqs draws nrot/2 random RoPE frequency factors in [1, 4) from rng
// and loads them into b as the f32 weight rope_freqs.weight (LongRoPE's
// and Llama 3's layout); it returns the factors and the weight.
func RopeFreqs(t testing.TB, b compute.Backend, rng *rand.Rand, nrot int) ([]float32, *compute.Tensor) {
	t.Helper()
	f := make([]float32, nrot/2)
	raw := make([]byte, 4*len(f))
	for i := range f {
		f[i] = 1 + 3*rng.Float32()
		binary.LittleEndian.PutUint32(raw[4*i:], math.Float32bits(f[i]))
	}
	fw := compute.NewWeight("rope_freqs.weight", gguf.TypeF32, len(f), 1)
	if err := b.LoadWeight(fw, int64(len(raw)), func(fn func(int64, []byte) error) error { return fn(0, raw) }); err != nil {
		t.Fatal(err)
	}
	return f, fw
}
