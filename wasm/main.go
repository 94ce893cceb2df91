//go:build js && wasm

// Command wasm is the engine's GOOS=js entry point; it runs inside a Web Worker.
package main

func main() {}
