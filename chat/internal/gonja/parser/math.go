package parser

import (
	"fmt"

	"github.com/webgguf/webgguf/chat/internal/gonja/logging"
	"github.com/webgguf/webgguf/chat/internal/gonja/logging/log"
	"github.com/webgguf/webgguf/chat/internal/gonja/nodes"
	"github.com/webgguf/webgguf/chat/internal/gonja/tokens"
)

func (p *Parser) ParseMath() (nodes.Expression, error) {
	if logging.Enabled() {
		log.WithFields(log.Fields{
			"current": p.Current(),
		}).Trace("ParseMath")
	}

	expr, err := p.parseConcat()
	if err != nil {
		return nil, err
	}

	links := 0 // webgguf patch: chain links, see link
	defer func() { p.unlink(links) }()
	for p.Current(tokens.Addition, tokens.Subtraction) != nil {
		p.link()
		links++
		op := BinOp(p.Pop())
		right, err := p.parseConcat()
		if err != nil {
			return nil, err
		}
		expr = &nodes.BinaryExpression{
			Left:     expr,
			Right:    right,
			Operator: op,
		}
	}

	if logging.Enabled() {
		log.WithFields(log.Fields{
			"expr": expr,
		}).Trace("ParseMath return")
	}
	return expr, nil
}

func (p *Parser) parseConcat() (nodes.Expression, error) {
	if logging.Enabled() {
		log.WithFields(log.Fields{
			"current": p.Current(),
		}).Trace("parseConcat")
	}

	expr, err := p.ParseMathPrioritary()
	if err != nil {
		return nil, err
	}

	links := 0 // webgguf patch: chain links, see link
	defer func() { p.unlink(links) }()
	for p.Current(tokens.Tilde) != nil {
		p.link()
		links++
		op := BinOp(p.Pop())
		right, err := p.ParseMathPrioritary()
		if err != nil {
			return nil, err
		}
		expr = &nodes.BinaryExpression{
			Left:     expr,
			Right:    right,
			Operator: op,
		}
	}

	if logging.Enabled() {
		log.WithFields(log.Fields{
			"expr": expr,
		}).Trace("parseConcat return")
	}
	return expr, nil
}

func (p *Parser) ParseMathPrioritary() (nodes.Expression, error) {
	if logging.Enabled() {
		log.WithFields(log.Fields{
			"current": p.Current(),
		}).Trace("ParseMathPrioritary")
	}

	expr, err := p.ParsePower()
	if err != nil {
		return nil, err
	}

	links := 0 // webgguf patch: chain links, see link
	defer func() { p.unlink(links) }()
	for p.Current(tokens.Multiply, tokens.Division, tokens.FloorDivision, tokens.Modulo) != nil {
		p.link()
		links++
		op := BinOp(p.Pop())
		right, err := p.ParsePower()
		if err != nil {
			return nil, err
		}
		expr = &nodes.BinaryExpression{
			Left:     expr,
			Right:    right,
			Operator: op,
		}
	}

	if logging.Enabled() {
		log.WithFields(log.Fields{
			"expr": expr,
		}).Trace("ParseMathPrioritary return")
	}
	return expr, nil
}

func (p *Parser) parseUnary() (nodes.Expression, error) {
	if logging.Enabled() {
		log.WithFields(log.Fields{
			"current": p.Current(),
		}).Trace("parseUnary")
	}

	sign := p.Match(tokens.Addition, tokens.Subtraction)

	expr, err := p.ParseVariableOrLiteral()
	if err != nil {
		return nil, err
	}

	if sign != nil {
		expr = &nodes.UnaryExpression{
			Operator: sign,
			Negative: sign.Val == "-",
			Term:     expr,
		}
	}

	expr, err = p.ParseFilterExpression(expr)
	if err != nil {
		return nil, err
	}

	if logging.Enabled() {
		log.WithFields(log.Fields{
			"expr": expr,
		}).Trace("parseUnary return")
	}
	return expr, nil
}

func (p *Parser) ParsePower() (nodes.Expression, error) {
	if logging.Enabled() {
		log.WithFields(log.Fields{
			"current": p.Current(),
		}).Trace("ParsePower")
	}

	if p.Current(tokens.In) != nil {
		return nil, nil
	}

	expr, err := p.parseUnary()
	if err != nil {
		return nil, err
	}

	links := 0 // webgguf patch: chain links, see link
	defer func() { p.unlink(links) }()
	for p.Current(tokens.Power) != nil {
		p.link()
		links++
		op := BinOp(p.Pop())
		right, err := p.parseUnary()
		if err != nil {
			return nil, err
		}
		expr = &nodes.BinaryExpression{
			Left:     expr,
			Right:    right,
			Operator: op,
		}
	}

	if logging.Enabled() {
		log.WithFields(log.Fields{
			"type": fmt.Sprintf("%T", expr),
			"expr": expr,
		}).Trace("ParsePower return")
	}
	return expr, nil
}
