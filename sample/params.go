package sample

import "math"

// Params configure a Sampler. Start from Defaults(): as in llama.cpp, TopP and
// TypicalP of 0 are not "off" but keep a single token.
type Params struct {
	// Temperature divides the logits; ≤ 0 picks the most likely token.
	Temperature float32
	// TopK keeps the K most likely tokens; ≤ 0 keeps all.
	TopK int
	// TopP keeps the smallest set of most likely tokens whose probability
	// reaches P; ≥ 1 keeps all.
	TopP float32
	// MinP drops tokens less likely than MinP times the most likely one;
	// ≤ 0 keeps all.
	MinP float32
	// TypicalP is locally typical sampling's mass; ≥ 1 disables it.
	TypicalP float32
	// MinKeep is the fewest tokens top-p, min-p and typical-p may leave.
	MinKeep int
	// PenaltyLastN is how many recent tokens the penalties look at; 0
	// disables them.
	PenaltyLastN int
	// RepeatPenalty divides positive logits (multiplies negative ones) of
	// tokens seen in the window; 1 is off.
	RepeatPenalty float32
	// FrequencyPenalty is subtracted once per occurrence in the window.
	FrequencyPenalty float32
	// PresencePenalty is subtracted once if the token occurs in the window.
	PresencePenalty float32
	// LogitBias is added to the given tokens' logits (-Inf bans a token).
	LogitBias map[int32]float32
	// Seed seeds the draw: the same seed and logits give the same tokens.
	Seed uint32
}

// Defaults returns llama.cpp's default sampling parameters (common_params
// _sampling): temperature 0.8, top-k 40, top-p 0.95, min-p 0.05, penalties
// over 64 tokens but all neutral.
func Defaults() Params {
	return Params{
		Temperature:   0.8,
		TopK:          40,
		TopP:          0.95,
		MinP:          0.05,
		TypicalP:      1,
		PenaltyLastN:  64,
		RepeatPenalty: 1,
	}
}

func (p *Params) validate(vocab int) error {
	finite := func(field string, v float32) error {
		if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
			return &ParamError{Field: field, Value: v, Why: "must be a finite number"}
		}
		return nil
	}
	for _, f := range []struct {
		name string
		v    float32
	}{{"Temperature", p.Temperature}, {"TopP", p.TopP}, {"MinP", p.MinP}, {"TypicalP", p.TypicalP},
		{"RepeatPenalty", p.RepeatPenalty}, {"FrequencyPenalty", p.FrequencyPenalty}, {"PresencePenalty", p.PresencePenalty}} {
		if err := finite(f.name, f.v); err != nil {
			return err
		}
	}
	if p.RepeatPenalty <= 0 && p.PenaltyLastN != 0 {
		return &ParamError{Field: "RepeatPenalty", Value: p.RepeatPenalty, Why: "must be positive (1 is off)"}
	}
	if p.PenaltyLastN < 0 {
		return &ParamError{Field: "PenaltyLastN", Value: p.PenaltyLastN, Why: "must not be negative"}
	}
	if p.PenaltyLastN > 1<<20 {
		return &ParamError{Field: "PenaltyLastN", Value: p.PenaltyLastN, Why: "larger than any context"}
	}
	if p.MinKeep < 0 {
		return &ParamError{Field: "MinKeep", Value: p.MinKeep, Why: "must not be negative"}
	}
	for tok, b := range p.LogitBias {
		if tok < 0 || int(tok) >= vocab {
			return &ParamError{Field: "LogitBias", Value: tok, Why: "token outside the vocabulary"}
		}
		if math.IsNaN(float64(b)) || math.IsInf(float64(b), 1) {
			return &ParamError{Field: "LogitBias", Value: b, Why: "bias must be a number or -Inf"}
		}
	}
	return nil
}
