package model

import "fmt"

// swaLayers returns which layers use the sliding window, as llama.cpp's
// set_swa_pattern(period) marks them (il % period < period-1; period 0:
// every layer), with period the architecture's default unless the file has
// attention.sliding_window_pattern: a period, or one bool per layer.
func swaLayers(k *keys, c *Config, period int) []bool {
	swa := make([]bool, c.NLayer)
	if v, ok := k.f.Value(c.Arch + ".attention.sliding_window_pattern"); ok {
		if n, ok := v.Uint(); ok && n <= maxLayer {
			period = int(n)
		} else if b, ok := v.V.([]bool); ok && len(b) == c.NLayer {
			copy(swa, b)
			return swa
		} else {
			k.fail("{arch}.attention.sliding_window_pattern", fmt.Sprintf("%v is neither a period nor %d booleans", v, c.NLayer))
		}
	}
	for il := range swa {
		swa[il] = period == 0 || il%period < period-1
	}
	return swa
}
