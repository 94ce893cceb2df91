package builtins

import (
	methods "github.com/webgguf/webgguf/chat/internal/gonja/builtins/methods"
	"github.com/webgguf/webgguf/chat/internal/gonja/exec"
)

// Methods exports all builtins methods.
var Methods exec.Methods = methods.All
