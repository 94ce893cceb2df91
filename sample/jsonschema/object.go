package jsonschema

import (
	"sort"
	"strconv"
	"strings"
)

// objectRule is llama.cpp's _build_object_rule: required properties in
// their order, then the optional ones in their order, each optional tail
// a "-rest" rule; additional properties ("*") come last.
func (c *converter) objectRule(props orderedProps, ptrs map[string]string, required map[string]bool, name string, ap *value, apPtr string) string {
	var req, opt []string
	kv := map[string]string{}
	for _, p := range props.names {
		pr := c.visit(props.m[p], joinName(name, p), ptrs[p])
		var b strings.Builder
		dumpString(&b, p)
		kv[p] = c.addRule(joinName(name, p+"-kv"), formatLiteral(b.String())+` space ":" space `+pr)
		if required[p] {
			req = append(req, p)
		} else {
			opt = append(opt, p)
		}
	}
	if ap != nil && (ap.kind == kBool && ap.b || ap.kind == kObject) {
		sub := joinName(name, "additional")
		var valueRule, keyRule string
		if ap.kind == kObject {
			valueRule = c.visit(ap, sub+"-value", apPtr)
		} else {
			valueRule = c.addPrimitive("value", primitiveRules["value"])
		}
		if len(props.names) == 0 {
			keyRule = c.addPrimitive("string", primitiveRules["string"])
		} else {
			keyRule = c.addRule(sub+"-k", c.notStrings(props.names))
		}
		kv["*"] = c.addRule(sub+"-kv", keyRule+` ":" space `+valueRule)
		opt = append(opt, "*")
	}
	rule := `"{" space `
	for i, p := range req {
		if i > 0 {
			rule += ` "," space `
		}
		rule += kv[p]
	}
	if len(opt) > 0 {
		rule += " ("
		if len(req) > 0 {
			rule += ` "," space ( `
		}
		var rest func(ks []string, firstOptional bool) string
		rest = func(ks []string, firstOptional bool) string {
			if len(ks) == 0 {
				return ""
			}
			k := ks[0]
			commaRef := `( "," space ` + kv[k] + " )"
			var res string
			if firstOptional {
				if k == "*" {
					res = commaRef + "*"
				} else {
					res = commaRef + "?"
				}
			} else {
				res = kv[k]
				if k == "*" {
					res += " " + commaRef + "*"
				}
			}
			if len(ks) > 1 {
				res += " " + c.addRule(joinName(name, k+"-rest"), rest(ks[1:], true))
			}
			return res
		}
		for i := range opt {
			if i > 0 {
				rule += " | "
			}
			rule += rest(opt[i:], false)
		}
		if len(req) > 0 {
			rule += " )"
		}
		rule += " )?"
	}
	return rule + ` "}" space`
}

// notStrings is llama.cpp's _not_strings: a JSON string that is none of
// the given ones, as a trie of character classes. Characters that are
// special inside a class are escaped (llama.cpp writes them raw).
func (c *converter) notStrings(strs []string) string {
	type node struct {
		children map[rune]*node
		end      bool
	}
	newNode := func() *node { return &node{children: map[rune]*node{}} }
	trie := newNode()
	for _, s := range strs {
		n := trie
		for _, r := range s {
			ch := n.children[r]
			if ch == nil {
				ch = newNode()
				n.children[r] = ch
			}
			n = ch
		}
		n.end = true
	}
	char := c.addPrimitive("char", primitiveRules["char"])
	var out strings.Builder
	out.WriteString(`["] ( `)
	var visit func(n *node)
	visit = func(n *node) {
		keys := make([]rune, 0, len(n.children))
		for r := range n.children {
			keys = append(keys, r)
		}
		sort.Slice(keys, func(i, j int) bool { return keys[i] < keys[j] })
		var rejects strings.Builder
		for i, r := range keys {
			ch := n.children[r]
			rejects.WriteString(rangeChar(r))
			if i > 0 {
				out.WriteString(" | ")
			}
			out.WriteString("[" + rangeChar(r) + "]")
			if len(ch.children) > 0 {
				out.WriteString(" (")
				visit(ch)
				out.WriteString(")")
			} else if ch.end {
				out.WriteString(" " + char + "+")
			}
		}
		if len(keys) > 0 {
			out.WriteString(` | [^"` + rejects.String() + "] " + char + "*")
		}
	}
	visit(trie)
	out.WriteString(" )")
	if !trie.end {
		out.WriteString("?")
	}
	out.WriteString(` ["] space`)
	return out.String()
}

// allOf is llama.cpp's allOf handling: the properties of every component
// are merged (required unless they come from an anyOf inside the allOf),
// and enum components intersect.
func (c *converter) allOf(s *value, name, rname, ptr string) string {
	check(s, ptr, []string{"object", "string"}, "type", "allOf")
	all := s.get("allOf")
	if all.kind != kArray || len(all.arr) == 0 {
		bad(ptr+"/allOf", "allOf must be a non-empty array of schemas")
	}
	props := orderedProps{m: map[string]*value{}}
	ptrs := map[string]string{}
	required := map[string]bool{}
	enumCount := map[string]int{}
	var add func(comp *value, req bool, cptr string, depth int)
	add = func(comp *value, req bool, cptr string, depth int) {
		if comp.kind != kObject {
			bad(cptr, "a schema must be a JSON object")
		}
		if depth > 64 {
			bad(cptr, "$ref cycle inside allOf")
		}
		switch {
		case comp.has("$ref"):
			check(comp, cptr, nil, "$ref")
			r := comp.get("$ref")
			if r.kind != kString {
				bad(cptr+"/$ref", "$ref must be a string")
			}
			t, tptr := c.resolve(r.s, cptr+"/$ref")
			add(t, req, tptr, depth+1)
		case comp.has("properties"):
			// The component's own required list is superseded: every
			// property of a direct component is required, which only
			// narrows what the schema accepts.
			check(comp, cptr, []string{"object"}, "type", "properties", "required", "additionalProperties")
			p, pp := c.properties(comp, cptr)
			for _, k := range p.names {
				if _, dup := props.m[k]; dup {
					unsupported(pp[k], "allOf", "property "+strconv.Quote(k)+" is defined by two components")
				}
				props.add(k, p.m[k])
				ptrs[k] = pp[k]
				if req {
					required[k] = true
				}
			}
		case comp.has("enum"):
			check(comp, cptr, nil, "type", "enum")
			e := comp.get("enum")
			if e.kind != kArray {
				bad(cptr+"/enum", "enum must be an array")
			}
			for _, v := range e.arr {
				enumCount[constRule(v)]++
			}
		default:
			unsupported(cptr, "allOf", "an allOf component must be a $ref, properties or an enum")
		}
	}
	for i, t := range all.arr {
		tptr := ptr + "/allOf/" + strconv.Itoa(i)
		if t.kind == kObject && t.has("anyOf") {
			check(t, tptr, nil, "anyOf")
			any := t.get("anyOf")
			if any.kind != kArray {
				bad(tptr+"/anyOf", "anyOf must be an array")
			}
			for j, tt := range any.arr {
				add(tt, false, tptr+"/anyOf/"+strconv.Itoa(j), 0)
			}
		} else {
			add(t, true, tptr, 0)
		}
	}
	if len(enumCount) > 0 {
		var inter []string
		for k, n := range enumCount {
			if n == len(all.arr) {
				inter = append(inter, k)
			}
		}
		sort.Strings(inter)
		if len(inter) == 0 {
			unsupported(ptr+"/allOf", "allOf", "its enums have no value in common with every component")
		}
		return c.addRule(rname, "("+strings.Join(inter, " | ")+") space")
	}
	return c.addRule(rname, c.objectRule(props, ptrs, required, name, nil, ""))
}
