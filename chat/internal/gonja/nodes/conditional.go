package nodes

import (
	"fmt"

	"github.com/webgguf/webgguf/chat/internal/gonja/tokens"
)

// Conditional is Jinja's conditional expression `a if cond else b` used
// inside an expression, e.g. ('x' + (y if loop.first else ”)).
// webgguf patch: upstream gonja only accepts it at the top of {{ }} and set.
type Conditional struct {
	Expression  Expression
	Condition   Expression
	Alternative Expression // nil: undefined/none when the condition is false
	Location    *tokens.Token
}

// Position returns the token that opened the expression.
func (c *Conditional) Position() *tokens.Token { return c.Location }

func (c *Conditional) String() string {
	return fmt.Sprintf("(%s if %s else %s)", c.Expression, c.Condition, c.Alternative)
}
