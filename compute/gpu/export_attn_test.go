package gpu

// SetAttnPrefillParts forces the prefill attention's threads per query
// (0: the default) for programs compiled afterwards.
func SetAttnPrefillParts(n int) { attnPartsForced.Store(int32(n)) }
