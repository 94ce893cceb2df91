package gen

import (
	"hash/fnv"
	"math/rand/v2"
)

// tensorSeed mixes the model seed with the tensor name, so each tensor's
// values depend only on (seed, name, row) and not on the order or
// parallelism of generation.
func tensorSeed(seed uint64, name string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(name))
	return h.Sum64() ^ seed*0x9e3779b97f4a7c15
}

// fillRow writes row r of tensor t into x (len = t.Ne[0]).
func fillRow(x []float32, t *tensorSpec, tseed uint64, r int) {
	rng := rand.New(rand.NewPCG(tseed, uint64(r)))
	switch t.Init {
	case initNorm:
		for i := range x {
			x[i] = float32(1 + 0.1*rng.NormFloat64())
		}
	default:
		for i := range x {
			x[i] = float32(t.Std * rng.NormFloat64())
		}
	}
}
