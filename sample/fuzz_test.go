package sample

import (
	"encoding/binary"
	"errors"
	"math"
	"testing"
)

// FuzzSample: arbitrary parameters and logits (NaN, infinities, huge and
// tiny values included) give a token in range or a typed error, never a
// panic.
func FuzzSample(f *testing.F) {
	f.Add(uint8(8), float32(0.8), int16(40), float32(0.95), float32(0.05), float32(1), uint8(0), uint8(8), float32(1.1), float32(0.1), float32(0.1), uint32(1), []byte("some logits here, more than eight bytes"))
	f.Add(uint8(3), float32(0), int16(0), float32(0), float32(0), float32(0), uint8(5), uint8(0), float32(1), float32(0), float32(0), uint32(0), []byte{0, 0, 0x80, 0x7f, 0, 0, 0xc0, 0x7f})
	f.Fuzz(func(t *testing.T, n uint8, temp float32, topK int16, topP, minP, typ float32, minKeep, lastN uint8, rep, freq, pres float32, seed uint32, raw []byte) {
		vocab := int(n%64) + 1
		p := Params{Temperature: temp, TopK: int(topK), TopP: topP, MinP: minP, TypicalP: typ, MinKeep: int(minKeep),
			PenaltyLastN: int(lastN), RepeatPenalty: rep, FrequencyPenalty: freq, PresencePenalty: pres, Seed: seed,
			LogitBias: map[int32]float32{0: float32(math.Inf(-1))}}
		s, err := New(vocab, p)
		if err != nil {
			var pe *ParamError
			if !errors.As(err, &pe) {
				t.Fatalf("untyped error %v", err)
			}
			return
		}
		logits := make([]float32, vocab)
		for step := 0; step < 4; step++ {
			for i := range logits {
				if len(raw) >= 4 {
					logits[i] = math.Float32frombits(binary.LittleEndian.Uint32(raw))
					raw = raw[4:]
				} else {
					logits[i] = float32(i) * 0.25
				}
			}
			tok, err := s.Sample(logits)
			if err != nil {
				var le *LogitError
				if !errors.As(err, &le) && !errors.Is(err, ErrNoCandidate) {
					t.Fatalf("untyped error %v", err)
				}
				continue
			}
			if tok <= 0 || int(tok) >= vocab {
				t.Fatalf("token %d outside 1..%d (0 is banned)", tok, vocab-1)
			}
		}
	})
}
