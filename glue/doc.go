// Package glue is the binary protocol between the page and the engine's Web Worker: schema, Go codec and the generator of the JavaScript codec.
package glue
