//go:build js && wasm

package main

import (
	"github.com/webgguf/webgguf/opfs"
	"github.com/webgguf/webgguf/worker"
)

// The OPFS model cache and loader (glue Opfs* requests).
func init() { opfs.Register(worker.DefaultMux) }
