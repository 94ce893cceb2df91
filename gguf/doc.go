// Package gguf reads, writes, dequantizes and quantizes GGUF model files (v2 and v3), validating untrusted input as it goes.
package gguf
