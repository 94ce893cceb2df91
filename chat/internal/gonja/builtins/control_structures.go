package builtins

import controlStructures "github.com/webgguf/webgguf/chat/internal/gonja/builtins/control_structures"

// ControlStructures exports all builtins controlStructures
var ControlStructures = controlStructures.All
