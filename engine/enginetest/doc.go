// Package enginetest is the conformance suite every compute backend must
// pass, by the same rule: Fixtures judges teacher-forced logits and greedy
// continuations on llama.cpp's fixture models (engine/refcheck's rule),
// Shapes compares every logit with the float64 reference on generated
// models of many shapes. The CPU backend runs it in package engine's
// tests; the WebGPU backend runs it with its own constructor.
package enginetest
