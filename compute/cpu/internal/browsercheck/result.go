package main

import "github.com/webgguf/webgguf/engine/refcheck"

// Probe is what the worker found about WebGPU and the engine host's
// backend choice.
type Probe struct {
	NavigatorGPU bool   // navigator.gpu exists in the worker
	Adapter      bool   // requestAdapter() granted one
	AutoBackend  string // backend the host picked for "auto"
	AutoBytes    int64  // engine info's backend bytes after that load
	WebGPUError  string // the error of an explicit "webgpu" load
	WebGPUKind   string // its worker error kind
}

// Result is what the worker posts for one model.
type Result struct {
	Model string
	// Eval holds the teacher-forced summaries (top 20 and lse per
	// position) and greedy tokens, judged natively.
	Eval refcheck.File
	// GreedyFailures are refcheck.Greedy's verdicts on the first prompts'
	// greedy continuations (they need our full logits rows, so they are
	// computed in the worker).
	GreedyFailures []string
	GreedySteps    int
	WeightBytes    int64 // bytes of the tensors in the file
	BackendBytes   int64 // what the CPU backend holds (weights, cache, arenas)
	LoadMs         float64
	EvalMs         float64
	Error          string `json:",omitempty"`
}

// Report is the whole JSON the worker posts. The page adds Hidden and
// HiddenError: the probe of a worker whose navigator.gpu was removed.
type Report struct {
	Probe       Probe
	Results     []Result
	Error       string `json:",omitempty"`
	Hidden      Probe
	HiddenError string
}
