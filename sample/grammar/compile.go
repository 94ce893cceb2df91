package grammar

import "sort"

// Compiled is a grammar checked and flattened for matching, as
// llama_grammar_init_impl prepares it: one element array (rules end to
// end), the start of each rule in it, and the initial stacks of the root
// rule. It is read-only and may be shared by many Matchers.
type Compiled struct {
	elems []Element
	start []int32 // rule id → index of its first element in elems
	names []string
	root  uint32
}

// Compile checks g as llama_grammar_init_impl does: the root rule exists
// (*NoRootError) and no rule is left-recursive (*LeftRecursionError).
func Compile(g *Grammar, root string) (*Compiled, error) {
	rid, ok := g.Symbols[root]
	if !ok || int(rid) >= len(g.Rules) {
		return nil, &NoRootError{Root: root}
	}
	c := &Compiled{root: rid, names: make([]string, len(g.Rules))}
	keys := make([]string, 0, len(g.Symbols))
	for k := range g.Symbols {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if id := g.Symbols[k]; int(id) < len(c.names) && c.names[id] == "" {
			c.names[id] = k
		}
	}
	for _, r := range g.Rules {
		c.start = append(c.start, int32(len(c.elems)))
		for _, e := range r {
			if e.Type == End {
				break
			}
			c.elems = append(c.elems, e)
		}
		c.elems = append(c.elems, Element{End, 0})
	}
	for _, e := range c.elems {
		if e.Type == RuleRef && int(e.Value) >= len(g.Rules) {
			return nil, &UndefinedRuleError{Name: "#" + itoa(int(e.Value))}
		}
	}
	if err := c.leftRecursion(); err != nil {
		return nil, err
	}
	return c, nil
}

func itoa(i int) string {
	if i == 0 {
		return "0"
	}
	var b []byte
	for ; i > 0; i /= 10 {
		b = append([]byte{byte('0' + i%10)}, b...)
	}
	return string(b)
}

// ParseCompile is Parse then Compile with the "root" rule.
func ParseCompile(src string) (*Compiled, error) {
	g, err := Parse(src)
	if err != nil {
		return nil, err
	}
	return Compile(g, "root")
}

func isEndOfSeq(t Type) bool { return t == End || t == Alt }

// rule returns the elements of rule id (its End included).
func (c *Compiled) rule(id uint32) []Element {
	end := int32(len(c.elems))
	if int(id)+1 < len(c.start) {
		end = c.start[id+1]
	}
	return c.elems[c.start[id]:end]
}

// leftRecursion is llama_grammar_detect_left_recursion over every rule,
// iteratively (an explicit stack) so that deep grammars cannot overflow.
func (c *Compiled) leftRecursion() error {
	n := len(c.start)
	visited := make([]bool, n)
	inProgress := make([]bool, n)
	mayBeEmpty := make([]bool, n)
	type frame struct {
		rule    uint32
		i       int  // next element to look at
		recurse bool // recurse_into_nonterminal
		child   int  // rule being waited for, -1 none
	}
	for r0 := 0; r0 < n; r0++ {
		if visited[r0] {
			continue
		}
		var st []frame
		enter := func(r uint32) bool {
			if inProgress[r] {
				return true
			}
			inProgress[r] = true
			rule := c.rule(r)
			atStart := true
			for _, e := range rule {
				if isEndOfSeq(e.Type) {
					if atStart {
						mayBeEmpty[r] = true
						break
					}
					atStart = true
				} else {
					atStart = false
				}
			}
			st = append(st, frame{rule: r, recurse: true, child: -1})
			return false
		}
		if enter(uint32(r0)) {
			return &LeftRecursionError{Rule: c.names[r0]}
		}
		for len(st) > 0 {
			f := &st[len(st)-1]
			rule := c.rule(f.rule)
			if f.child >= 0 {
				if !mayBeEmpty[f.child] {
					f.recurse = false
				}
				f.child = -1
				f.i++
				continue
			}
			if f.i >= len(rule) {
				inProgress[f.rule] = false
				visited[f.rule] = true
				st = st[:len(st)-1]
				continue
			}
			e := rule[f.i]
			switch {
			case e.Type == RuleRef && f.recurse:
				f.child = int(e.Value)
				if visited[e.Value] {
					// Explored before without finding a cycle: the same
					// answer as llama.cpp's re-exploration, without its
					// exponential time.
					continue
				}
				if enter(e.Value) {
					return &LeftRecursionError{Rule: c.names[e.Value]}
				}
			case isEndOfSeq(e.Type):
				f.recurse = true
				f.i++
			default:
				f.recurse = false
				f.i++
			}
		}
	}
	return nil
}
