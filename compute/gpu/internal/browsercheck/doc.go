// Command browsercheck is a GOOS=js program that proves the WebGPU backend
// in a browser: in a Web Worker it fetches fixture models and their
// references over HTTP, loads each model into the GPU through compute/gpu,
// evaluates every prompt teacher-forced and greedily, judges the logits by
// engine/refcheck's rule and posts the reports to the page. The native
// test in this package drives it in headless Chromium through
// scripts/harness and checks the reports.
package main
