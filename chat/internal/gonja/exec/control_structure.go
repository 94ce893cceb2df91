package exec

import (
	"github.com/webgguf/webgguf/chat/internal/gonja/nodes"
)

type ControlStructure interface {
	nodes.ControlStructure
	Execute(*Renderer, *nodes.ControlStructureBlock) error
}
