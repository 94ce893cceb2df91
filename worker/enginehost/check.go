package enginehost

import (
	"github.com/webgguf/webgguf/gguf"
	"github.com/webgguf/webgguf/model"
)

// checkModel reports, without allocating the weights, whether this engine
// runs f: its architecture is registered, its hyperparameters read and
// every tensor the architecture binds is there with its shape. gguf.Open
// has already checked the header, the tensor table and that every
// tensor's data lies inside the file (a truncated file fails there).
// Loads check this before freeing the loaded model (Host.LoadFile), and
// downloads before caching the file (check_js.go).
func checkModel(f *gguf.File) error {
	if _, err := model.Load(f); err != nil {
		return classifyLoad(err)
	}
	return nil
}
