package controlStructures

// webgguf patch: the `generation` block of transformers' Jinja environment.

import (
	"fmt"

	"github.com/webgguf/webgguf/chat/internal/gonja/exec"
	"github.com/webgguf/webgguf/chat/internal/gonja/nodes"
	"github.com/webgguf/webgguf/chat/internal/gonja/parser"
	"github.com/webgguf/webgguf/chat/internal/gonja/tokens"
)

// GenerationControlStructure is `{% generation %}…{% endgeneration %}`, the
// tag transformers' apply_chat_template defines (its AssistantTracker
// extension) to mark the assistant's tokens for return_assistant_tokens_mask.
// It renders its body unchanged. transformers compiles it to a call block,
// so the body runs as a macro (`caller()`) does: it reads the enclosing
// variables, and a `set` inside it stays inside it.
type GenerationControlStructure struct {
	location *tokens.Token
	wrapper  *nodes.Wrapper
}

func (g *GenerationControlStructure) Position() *tokens.Token { return g.location }
func (g *GenerationControlStructure) String() string {
	t := g.Position()
	return fmt.Sprintf("GenerationControlStructure(Line=%d Col=%d)", t.Line, t.Col)
}

func (g *GenerationControlStructure) Execute(r *exec.Renderer, tag *nodes.ControlStructureBlock) error {
	return r.Inherit().ExecuteWrapper(g.wrapper)
}

func generationParser(p *parser.Parser, args *parser.Parser) (nodes.ControlStructure, error) {
	cs := &GenerationControlStructure{location: p.Current()}
	if !args.End() {
		return nil, args.Error("generation takes no arguments.", args.Current())
	}
	wrapper, endargs, err := p.WrapUntil("endgeneration")
	if err != nil {
		return nil, err
	}
	if !endargs.End() {
		return nil, endargs.Error("endgeneration takes no arguments.", nil)
	}
	cs.wrapper = wrapper
	return cs, nil
}
