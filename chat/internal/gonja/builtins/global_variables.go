package builtins

import "github.com/webgguf/webgguf/chat/internal/gonja/exec"

var GlobalVariables = exec.NewContext(map[string]any{
	"gonja": map[string]any{
		"version": "v2.9.1",
	},
})
