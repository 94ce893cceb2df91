//go:build !js

package enginehost

import (
	"context"

	"github.com/webgguf/webgguf/glue"
)

// loadNamed serves the named sources (OPFS cache, URL, posted Blobs) of a
// ModelLoadRequest, which exist only in the browser.
func (h *Host) loadNamed(context.Context, *glue.ModelLoadRequest, LoadOptions) (*glue.ModelInfo, error) {
	return nil, invalid("cache, URL and Blob sources need the browser engine; send the file's bytes")
}
