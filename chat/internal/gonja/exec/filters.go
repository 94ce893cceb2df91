package exec

import (
	"fmt"

	errors "github.com/webgguf/webgguf/chat/internal/gonja/errs"

	"github.com/webgguf/webgguf/chat/internal/gonja/nodes"
)

// FilterFunction is the type filter functions must fulfill
type FilterFunction func(e *Evaluator, in *Value, params *VarArgs) *Value

// EvaluateFiltered evaluates a filtered expression
func (e *Evaluator) EvaluateFiltered(expr *nodes.FilteredExpression) *Value {
	value := e.Eval(expr.Expression)

	for _, filter := range expr.Filters {
		value = e.ExecuteFilter(filter, value)
		if value.IsError() {
			return AsValue(errors.Wrapf(value, "unable to evaluate filter %s", filter))
		}
	}

	return value
}

// ExecuteFilter executes a filter node
func (e *Evaluator) ExecuteFilter(fc *nodes.FilterCall, v *Value) *Value {
	params := NewVarArgs()

	for _, param := range fc.Args {
		value := e.Eval(param)
		if value.IsError() {
			return AsValue(errors.Wrapf(value, "unable to evaluate parameter %s", param))
		}
		if big := checkIntArgument(value); big != nil { // webgguf patch
			return big
		}
		params.Args = append(params.Args, value)
	}

	for key, param := range fc.Kwargs {
		value := e.Eval(param)
		if value.IsError() {
			return AsValue(errors.Wrapf(value, "unable to evaluate parameter %s=%s", key, param))
		}
		if big := checkIntArgument(value); big != nil { // webgguf patch
			return big
		}
		params.KwArgs[key] = value
	}
	return e.ExecuteFilterByName(fc.Name, v, params)
}

// ExecuteFilterByName executes a filter given its name
func (e *Evaluator) ExecuteFilterByName(name string, in *Value, params *VarArgs) *Value {
	filter, ok := e.Environment.Filters.Get(name)
	if !e.Environment.Filters.Exists(name) || !ok {
		return AsValue(errors.Errorf("filter '%s' not found", name))
	}
	// webgguf patch: a filter walks its input and arguments and builds its
	// result; both count against the render's budget. Filters that could
	// build past MaxStringBytes or MaxListLen check the size themselves
	// before they build.
	if !constantTime[name] {
		e.Budget.Scan(in)
	}
	for _, a := range params.Args {
		e.Budget.Scan(a)
	}
	for _, a := range params.KwArgs {
		e.Budget.Scan(a)
	}
	returnedValue := filter(e, in, params)
	e.Budget.Built(returnedValue)
	if returnedValue.IsError() {
		err, ok := returnedValue.Interface().(ErrInvalidCall)
		if ok {
			return AsValue(fmt.Errorf("invalid call to filter '%s': %s", name, err.Error()))
		}
	}

	return returnedValue
}

// constantTime are the filters that do not walk a list they are given
// (webgguf patch): `messages|length` in a loop over messages must not cost
// the square of the conversation.
var constantTime = map[string]bool{
	"length": true, "count": true, "first": true, "last": true, "default": true,
	"d": true, "safe": true, "attr": true, "random": true,
}
