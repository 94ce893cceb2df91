package enginehost

import "github.com/webgguf/webgguf/sample"

// plainGreedy reports whether p always picks the highest logit, so that a
// request can run on engine.Greedy: the backend picks each token (on the
// GPU, an argmax kernel whose id is the only thing read back, with the
// next step submitted before it is read) instead of the sampler chain over
// a logits row copied to the host for every token.
//
// The chain picks the top logit when top-k is 1, or when the temperature
// is ≤ 0 and nothing before the pick can drop the top token: top-k, top-p
// and min-p never do, locally typical sampling (TypicalP < 1) can. Logit
// bias and penalties change the logits, so requests with any of them keep
// the chain (a zero bias too; penalties count as set even with an empty
// window, PenaltyLastN 0). The random number the chain draws on a greedy
// pick changes nothing, as the sampler lives for one request.
//
// Two differences are left, both out of reach of real logits: on an exact
// tie for the top logit Greedy takes the lowest id (llama.cpp's greedy
// sampler) where the chain takes the first its sort left in front, and a
// NaN or infinite logit is an error of the chain's only.
func plainGreedy(p sample.Params) bool {
	if len(p.LogitBias) > 0 || p.RepeatPenalty != 1 || p.FrequencyPenalty != 0 || p.PresencePenalty != 0 {
		return false
	}
	return p.TopK == 1 || (p.Temperature <= 0 && p.TypicalP >= 1)
}
