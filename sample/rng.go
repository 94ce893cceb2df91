package sample

// mt19937 is the 32-bit Mersenne Twister, std::mt19937: llama.cpp's dist
// sampler draws from it, so the same seed gives the same stream here.
type mt19937 struct {
	mt  [624]uint32
	idx int
}

func (m *mt19937) seed(s uint32) {
	m.mt[0] = s
	for i := 1; i < 624; i++ {
		m.mt[i] = 1812433253*(m.mt[i-1]^(m.mt[i-1]>>30)) + uint32(i)
	}
	m.idx = 624
}

func (m *mt19937) next() uint32 {
	if m.idx >= 624 {
		for i := 0; i < 624; i++ {
			y := m.mt[i]&0x80000000 | m.mt[(i+1)%624]&0x7fffffff
			v := m.mt[(i+397)%624] ^ y>>1
			if y&1 != 0 {
				v ^= 0x9908b0df
			}
			m.mt[i] = v
		}
		m.idx = 0
	}
	y := m.mt[m.idx]
	m.idx++
	y ^= y >> 11
	y ^= y << 7 & 0x9d2c5680
	y ^= y << 15 & 0xefc60000
	y ^= y >> 18
	return y
}

// canonical is libstdc++'s std::generate_canonical<double, 53> over a 32-bit
// engine, which std::uniform_real_distribution<double>(0, 1) returns: two
// draws r0 + r1·2³², divided by 2⁶⁴, clamped below 1.
func (m *mt19937) canonical() float64 {
	const two32 = 4294967296.0
	lo := float64(m.next())
	hi := float64(m.next())
	r := (lo + hi*two32) / (two32 * two32)
	if r >= 1 {
		r = 1 - 1.0/(1<<53) // nextafter(1, 0)
	}
	return r
}
