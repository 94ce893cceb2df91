package jsonschema

import (
	"math"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/webgguf/webgguf/sample/grammar"
)

// ToGrammar converts a JSON Schema (JSON text) into a GBNF grammar whose
// start rule is "root", as llama.cpp's json_schema_to_grammar does. Errors
// are *SchemaError (not a readable schema) or *UnsupportedError (a keyword
// the grammar would not enforce).
func ToGrammar(schema []byte) (string, error) {
	root, err := parseJSON(schema)
	if err != nil {
		return "", err
	}
	return FromValue(root)
}

// FromValue is ToGrammar for a schema already parsed by ParseSchema.
func FromValue(schema *Schema) (string, error) {
	c := &converter{rules: map[string]string{"space": spaceRule}, resolving: map[string]bool{}}
	root := schema.clone()
	hoistDefs(root)
	c.root = root
	if _, err := c.visitTop(root); err != nil {
		return "", err
	}
	text := c.format()
	// The rules copy pattern fragments verbatim, as llama.cpp does; a
	// pattern that does not translate into valid GBNF is caught here.
	if _, err := grammar.ParseCompile(text); err != nil {
		return "", &SchemaError{Msg: "the schema's grammar does not compile: " + err.Error()}
	}
	return text, nil
}

// Schema is a parsed JSON document that keeps the order of object members.
type Schema = value

// ParseSchema reads a JSON document for FromValue; its errors are
// *SchemaError.
func ParseSchema(data []byte) (*Schema, error) { return parseJSON(data) }

type converter struct {
	root      *value
	rules     map[string]string
	resolving map[string]bool
}

// failure carries a typed error out of the recursive visit.
type failure struct{ err error }

func (c *converter) visitTop(root *value) (s string, err error) {
	defer func() {
		if r := recover(); r != nil {
			f, ok := r.(failure)
			if !ok {
				panic(r)
			}
			err = f.err
		}
	}()
	return c.visit(root, "", ""), nil
}

func bad(ptr, msg string) { panic(failure{&SchemaError{Pointer: ptr, Msg: msg}}) }

func unsupported(ptr, kw, reason string) {
	panic(failure{&UnsupportedError{Pointer: ptr, Keyword: kw, Reason: reason}})
}

// esc escapes a JSON pointer reference token.
func esc(k string) string {
	return strings.ReplaceAll(strings.ReplaceAll(k, "~", "~0"), "/", "~1")
}

func (c *converter) format() string {
	names := make([]string, 0, len(c.rules))
	for k := range c.rules {
		names = append(names, k)
	}
	sort.Strings(names)
	var b strings.Builder
	for _, k := range names {
		b.WriteString(k + " ::= " + c.rules[k] + "\n")
	}
	return b.String()
}

// addRule is llama.cpp's _add_rule: a name already taken by another rule
// gets the first free numeric suffix.
func (c *converter) addRule(name, rule string) string {
	esc := ruleName(name)
	if r, ok := c.rules[esc]; !ok || r == rule {
		c.rules[esc] = rule
		return esc
	}
	i := 0
	for {
		r, ok := c.rules[esc+strconv.Itoa(i)]
		if !ok || r == rule {
			break
		}
		i++
	}
	key := esc + strconv.Itoa(i)
	c.rules[key] = rule
	return key
}

func (c *converter) addPrimitive(name string, r builtin) string {
	n := c.addRule(name, r.content)
	for _, dep := range r.deps {
		d, ok := primitiveRules[dep]
		if !ok {
			d = formatRules[dep]
		}
		if _, ok := c.rules[dep]; !ok {
			c.addPrimitive(dep, d)
		}
	}
	return n
}

// hoistDefs moves $defs found below the root up to the root's $defs (the
// first definition of a name wins), as llama.cpp does for schemas whose
// nested $defs are referenced as #/$defs/NAME.
func hoistDefs(root *value) {
	if root.kind != kObject {
		return
	}
	collected := &value{kind: kObject, obj: map[string]*value{}}
	var collect func(n *value)
	collect = func(n *value) {
		if n.kind != kObject {
			return
		}
		if d := n.get("$defs"); d != nil && d.kind == kObject {
			for _, k := range d.keys {
				if !collected.has(k) {
					collected.set(k, d.obj[k])
				}
			}
			n.del("$defs")
		}
		for _, k := range n.keys {
			v := n.obj[k]
			if v.kind == kObject {
				collect(v)
			} else if v.kind == kArray {
				for _, e := range v.arr {
					collect(e)
				}
			}
		}
	}
	collect(root)
	if len(collected.keys) == 0 {
		return
	}
	defs := root.get("$defs")
	if defs == nil || defs.kind != kObject {
		defs = &value{kind: kObject, obj: map[string]*value{}}
		root.set("$defs", defs)
	}
	for _, k := range collected.keys {
		if !defs.has(k) {
			defs.set(k, collected.obj[k])
		}
	}
}

// annotations are keywords that do not constrain a value.
var annotations = map[string]bool{
	"title": true, "description": true, "default": true, "examples": true,
	"$schema": true, "$id": true, "$comment": true, "$anchor": true,
	"$defs": true, "definitions": true, "deprecated": true, "readOnly": true,
	"writeOnly": true, "contentEncoding": true, "contentMediaType": true,
	"$vocabulary": true, "$dynamicAnchor": true, "$recursiveAnchor": true,
}

// applies names the JSON types a constraining keyword restricts ("" for
// every type). Keywords outside this table and annotations are ignored, as
// JSON Schema says of unknown keywords.
var applies = map[string]string{
	"type": "", "enum": "", "const": "", "allOf": "", "anyOf": "", "oneOf": "",
	"not": "", "if": "", "then": "", "else": "", "$ref": "", "$dynamicRef": "",
	"$recursiveRef": "",
	"multipleOf":    "number", "maximum": "number", "exclusiveMaximum": "number",
	"minimum": "number", "exclusiveMinimum": "number",
	"maxLength": "string", "minLength": "string", "pattern": "string", "format": "string",
	"contentSchema": "string",
	"items":         "array", "prefixItems": "array", "additionalItems": "array",
	"unevaluatedItems": "array", "contains": "array", "minContains": "array",
	"maxContains": "array", "maxItems": "array", "minItems": "array", "uniqueItems": "array",
	"properties": "object", "patternProperties": "object", "additionalProperties": "object",
	"unevaluatedProperties": "object", "propertyNames": "object", "maxProperties": "object",
	"minProperties": "object", "required": "object", "dependentRequired": "object",
	"dependentSchemas": "object", "dependencies": "object",
}

// check fails on the first constraining keyword of s that the chosen rule
// did not use (used) and that restricts one of the JSON types the rule can
// produce (types; empty means any type).
func check(s *value, ptr string, types []string, used ...string) {
	for _, k := range s.keys {
		t, ok := applies[k]
		if !ok || annotations[k] || contains(used, k) {
			continue
		}
		if t != "" && len(types) > 0 {
			hit := false
			for _, ty := range types {
				if ty == t || t == "number" && ty == "integer" {
					hit = true
				}
			}
			if !hit {
				continue
			}
		}
		if k == "additionalProperties" && s.obj[k].kind == kBool && s.obj[k].b {
			continue // true is the default
		}
		unsupported(ptr+"/"+esc(k), k, "")
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func joinName(name, suffix string) string {
	if name == "" {
		return suffix
	}
	return name + "-" + suffix
}

// resolve follows a local reference "#/a/b" from the root; it returns the
// target and its pointer.
func (c *converter) resolve(ref, ptr string) (*value, string) {
	if !strings.HasPrefix(ref, "#/") {
		unsupported(ptr, "$ref", "only local references (#/...) are supported, not "+strconv.Quote(ref))
	}
	target := c.root
	for _, tok := range strings.Split(ref[2:], "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		switch target.kind {
		case kObject:
			if !target.has(tok) {
				bad(ptr, "cannot resolve $ref "+strconv.Quote(ref))
			}
			target = target.obj[tok]
		case kArray:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(target.arr) {
				bad(ptr, "cannot resolve $ref "+strconv.Quote(ref))
			}
			target = target.arr[i]
		default:
			bad(ptr, "cannot resolve $ref "+strconv.Quote(ref))
		}
	}
	return target, ref[1:]
}

var nonAlnum = regexp.MustCompile(`[^a-zA-Z0-9-]+`)

// resolveRef is llama.cpp's _resolve_ref: a reference becomes one rule
// named after its fragment, visited once (so recursive schemas work).
func (c *converter) resolveRef(ref, ptr string) string {
	frag := ref
	if i := strings.IndexByte(ref, '#'); i >= 0 {
		frag = ref[i+1:]
	}
	name := "ref" + nonAlnum.ReplaceAllString(frag, "-")
	if _, ok := c.rules[name]; !ok && !c.resolving[ref] {
		target, tptr := c.resolve(ref, ptr)
		c.resolving[ref] = true
		name = c.visit(target, name, tptr)
		delete(c.resolving, ref)
	}
	return name
}

func (c *converter) unionRule(name string, alts []*value, ptrs []string) string {
	rules := make([]string, len(alts))
	for i, a := range alts {
		sep := "-"
		if name == "" {
			sep = "alternative-"
		}
		rules[i] = c.visit(a, name+sep+strconv.Itoa(i), ptrs[i])
	}
	return strings.Join(rules, " | ")
}

func constRule(v *value) string { return formatLiteral(v.String()) }

// intKeyword reads a non-negative integer keyword.
func intKeyword(s *value, k, ptr string) int {
	v := s.get(k)
	if v.kind != kNumber {
		bad(ptr+"/"+k, k+" must be a non-negative integer")
	}
	f := v.float()
	if f < 0 || f != math.Trunc(f) || f > 1<<30 {
		bad(ptr+"/"+k, k+" must be a non-negative integer")
	}
	return int(f)
}

// bound reads a numeric bound for an integer schema, rounded inwards.
func bound(s *value, k, ptr string, lower bool) int64 {
	v := s.get(k)
	if v.kind != kNumber {
		bad(ptr+"/"+k, k+" must be a number")
	}
	f := v.float()
	if math.Abs(f) > 1e18 {
		unsupported(ptr+"/"+k, k, "bounds beyond ±1e18 are not supported")
	}
	if v.isInt() {
		n, _ := strconv.ParseInt(v.num, 10, 64)
		return n
	}
	if lower {
		return int64(math.Ceil(f))
	}
	return int64(math.Floor(f))
}

var uuidFormat = regexp.MustCompile(`^uuid[1-5]?$`)

// jsonTypes are the type names JSON Schema defines.
var jsonTypes = map[string]bool{"string": true, "number": true, "integer": true, "boolean": true, "null": true, "object": true, "array": true}

// visit is llama.cpp's visit: the rule for schema s under the given name,
// with ptr its JSON pointer for errors.
func (c *converter) visit(s *value, name, ptr string) string {
	if s.kind != kObject {
		bad(ptr, "a schema must be a JSON object, not "+s.String())
	}
	typ := s.get("type")
	format := ""
	if f := s.get("format"); f != nil {
		if f.kind != kString {
			bad(ptr+"/format", "format must be a string")
		}
		format = f.s
	}
	rname := name
	if isReserved(name) {
		rname = name + "-"
	} else if name == "" {
		rname = "root"
	}
	typeIs := func(t string) bool { return typ != nil && typ.kind == kString && typ.s == t }
	typeNullOr := func(ts ...string) bool {
		if typ == nil {
			return true
		}
		for _, t := range ts {
			if typeIs(t) {
				return true
			}
		}
		return false
	}
	if typ != nil && typ.kind == kString && !jsonTypes[typ.s] {
		bad(ptr+"/type", "unknown type "+strconv.Quote(typ.s))
	}
	if typ != nil && typ.kind != kString && typ.kind != kArray {
		bad(ptr+"/type", "type must be a string or an array of strings")
	}

	if r := s.get("$ref"); r != nil {
		if r.kind != kString {
			bad(ptr+"/$ref", "$ref must be a string")
		}
		check(s, ptr, nil, "$ref")
		return c.addRule(rname, c.resolveRef(r.s, ptr+"/$ref"))
	}
	if s.has("oneOf") || s.has("anyOf") {
		kw := "anyOf"
		if s.has("oneOf") {
			kw = "oneOf"
		}
		alts := s.get(kw)
		if alts.kind != kArray || len(alts.arr) == 0 {
			bad(ptr+"/"+kw, kw+" must be a non-empty array of schemas")
		}
		check(s, ptr, nil, kw, "type")
		ptrs := make([]string, len(alts.arr))
		for i := range ptrs {
			ptrs[i] = ptr + "/" + kw + "/" + strconv.Itoa(i)
		}
		c.unionType(typ, alts.arr, ptrs, ptr)
		return c.addRule(rname, c.unionRule(name, alts.arr, ptrs))
	}
	if typ != nil && typ.kind == kArray {
		if len(typ.arr) == 0 {
			bad(ptr+"/type", "type must not be an empty array")
		}
		alts := make([]*value, len(typ.arr))
		ptrs := make([]string, len(typ.arr))
		for i, t := range typ.arr {
			if t.kind != kString {
				bad(ptr+"/type/"+strconv.Itoa(i), "type must be a string")
			}
			cp := s.clone()
			cp.set("type", t)
			alts[i], ptrs[i] = cp, ptr
		}
		return c.addRule(rname, c.unionRule(name, alts, ptrs))
	}
	if v := s.get("const"); v != nil {
		check(s, ptr, nil, "const", "type")
		return c.addRule(rname, constRule(v)+" space")
	}
	if e := s.get("enum"); e != nil {
		if e.kind != kArray || len(e.arr) == 0 {
			bad(ptr+"/enum", "enum must be a non-empty array")
		}
		check(s, ptr, nil, "enum", "type")
		vals := make([]string, len(e.arr))
		for i, v := range e.arr {
			vals[i] = constRule(v)
		}
		return c.addRule(rname, "("+strings.Join(vals, " | ")+") space")
	}
	ap := s.get("additionalProperties")
	if typeNullOr("object") && (s.has("properties") || ap != nil && !(ap.kind == kBool && ap.b)) {
		check(s, ptr, []string{"object"}, "type", "properties", "required", "additionalProperties")
		props, pptrs := c.properties(s, ptr)
		required := map[string]bool{}
		if r := s.get("required"); r != nil {
			if r.kind != kArray {
				bad(ptr+"/required", "required must be an array of strings")
			}
			for i, it := range r.arr {
				if it.kind != kString {
					bad(ptr+"/required/"+strconv.Itoa(i), "required must be an array of strings")
				}
				if _, ok := props.m[it.s]; !ok {
					unsupported(ptr+"/required/"+strconv.Itoa(i), "required", "required property "+strconv.Quote(it.s)+" is not among the properties")
				}
				required[it.s] = true
			}
		}
		if ap != nil && ap.kind != kBool && ap.kind != kObject {
			bad(ptr+"/additionalProperties", "additionalProperties must be a boolean or a schema")
		}
		return c.addRule(rname, c.objectRule(props, pptrs, required, name, ap, ptr+"/additionalProperties"))
	}
	if typeNullOr("object", "string") && s.has("allOf") {
		return c.allOf(s, name, rname, ptr)
	}
	if typeNullOr("array") && (s.has("items") || s.has("prefixItems")) {
		kw := "items"
		if !s.has("items") {
			kw = "prefixItems"
		}
		items := s.get(kw)
		if items.kind == kArray {
			check(s, ptr, []string{"array"}, "type", kw, "minItems", "maxItems")
			n := len(items.arr)
			if s.has("minItems") && intKeyword(s, "minItems", ptr) > n {
				unsupported(ptr+"/minItems", "minItems", "minItems beyond a tuple's length")
			}
			if s.has("maxItems") && intKeyword(s, "maxItems", ptr) < n {
				unsupported(ptr+"/maxItems", "maxItems", "maxItems below a tuple's length")
			}
			rule := `"[" space `
			for i, it := range items.arr {
				if i > 0 {
					rule += ` "," space `
				}
				rule += c.visit(it, joinName(name, "tuple-"+strconv.Itoa(i)), ptr+"/"+kw+"/"+strconv.Itoa(i))
			}
			return c.addRule(rname, rule+` "]" space`)
		}
		check(s, ptr, []string{"array"}, "type", kw, "minItems", "maxItems")
		item := c.visit(items, joinName(name, "item"), ptr+"/"+kw)
		minItems, maxItems := 0, noMax
		if s.has("minItems") {
			minItems = intKeyword(s, "minItems", ptr)
		}
		if s.has("maxItems") {
			maxItems = intKeyword(s, "maxItems", ptr)
		}
		if minItems > maxItems {
			bad(ptr+"/minItems", "minItems exceeds maxItems")
		}
		return c.addRule(rname, `"[" space `+buildRepetition(item, minItems, maxItems, `"," space`)+` "]" space`)
	}
	if typeNullOr("string") && s.has("pattern") {
		p := s.get("pattern")
		if p.kind != kString {
			bad(ptr+"/pattern", "pattern must be a string")
		}
		check(s, ptr, []string{"string"}, "type", "pattern")
		return c.visitPattern(p.s, rname, ptr+"/pattern")
	}
	if typeNullOr("string") && uuidFormat.MatchString(format) {
		check(s, ptr, []string{"string"}, "type", "format")
		n := format
		if rname == "root" {
			n = "root"
		}
		return c.addPrimitive(n, primitiveRules["uuid"])
	}
	if typeNullOr("string") && format != "" {
		if r, ok := formatRules[format+"-string"]; ok {
			check(s, ptr, []string{"string"}, "type", "format")
			return c.addRule(rname, c.addPrimitive(format+"-string", r))
		}
	}
	if typeIs("string") && (s.has("minLength") || s.has("maxLength")) {
		check(s, ptr, []string{"string"}, "type", "minLength", "maxLength")
		char := c.addPrimitive("char", primitiveRules["char"])
		minLen, maxLen := 0, noMax
		if s.has("minLength") {
			minLen = intKeyword(s, "minLength", ptr)
		}
		if s.has("maxLength") {
			maxLen = intKeyword(s, "maxLength", ptr)
		}
		if minLen > maxLen {
			bad(ptr+"/minLength", "minLength exceeds maxLength")
		}
		return c.addRule(rname, `"\"" `+buildRepetition(char, minLen, maxLen, "")+` "\"" space`)
	}
	if typeIs("integer") && (s.has("minimum") || s.has("exclusiveMinimum") || s.has("maximum") || s.has("exclusiveMaximum")) {
		check(s, ptr, []string{"integer"}, "type", "minimum", "exclusiveMinimum", "maximum", "exclusiveMaximum")
		minV, maxV := int64(math.MinInt64), int64(math.MaxInt64)
		if s.has("minimum") {
			minV = bound(s, "minimum", ptr, true)
		}
		if s.has("exclusiveMinimum") {
			minV = max(minV, bound(s, "exclusiveMinimum", ptr, false)+1)
		}
		if s.has("maximum") {
			maxV = bound(s, "maximum", ptr, false)
		}
		if s.has("exclusiveMaximum") {
			maxV = min(maxV, bound(s, "exclusiveMaximum", ptr, true)-1)
		}
		if minV > maxV {
			bad(ptr, "the integer bounds admit no value")
		}
		var out strings.Builder
		out.WriteString("(")
		buildMinMaxInt(minV, maxV, &out, 16, true)
		out.WriteString(") space")
		return c.addRule(rname, out.String())
	}
	if len(s.keys) == 0 || typeIs("object") {
		if typeIs("object") {
			check(s, ptr, []string{"object"}, "type")
		}
		return c.addRule(rname, c.addPrimitive("object", primitiveRules["object"]))
	}
	if typ == nil {
		// No type and no keyword that picks a rule: any JSON value.
		check(s, ptr, nil)
		return c.addRule(rname, c.addPrimitive("value", primitiveRules["value"]))
	}
	check(s, ptr, []string{typ.s}, "type")
	n := typ.s
	if rname == "root" {
		n = "root"
	}
	return c.addPrimitive(n, primitiveRules[typ.s])
}

// unionType checks a type written beside anyOf or oneOf, which the
// alternatives' rules do not apply: it must be one that every typed
// alternative already has.
func (c *converter) unionType(typ *value, alts []*value, ptrs []string, ptr string) {
	if typ == nil {
		return
	}
	if typ.kind != kString {
		unsupported(ptr+"/type", "type", "a type array beside anyOf or oneOf is not supported")
	}
	for i, a := range alts {
		if a.kind == kObject && a.has("$ref") && a.get("$ref").kind == kString && strings.HasPrefix(a.get("$ref").s, "#/") {
			a, _ = c.resolve(a.get("$ref").s, ptrs[i])
		}
		at := a.get("type")
		if at == nil || at.kind != kString {
			continue
		}
		if at.s != typ.s && !(typ.s == "number" && at.s == "integer") {
			unsupported(ptr+"/type", "type", "an alternative at "+ptrs[i]+" has type "+strconv.Quote(at.s))
		}
	}
}

// orderedProps is an object's properties in their order.
type orderedProps struct {
	names []string
	m     map[string]*value
}

func (p *orderedProps) add(k string, v *value) {
	p.names = append(p.names, k)
	p.m[k] = v
}

// properties reads the properties keyword: names in order, their schemas
// and pointers.
func (c *converter) properties(s *value, ptr string) (orderedProps, map[string]string) {
	out := orderedProps{m: map[string]*value{}}
	ptrs := map[string]string{}
	p := s.get("properties")
	if p == nil {
		return out, ptrs
	}
	if p.kind != kObject {
		bad(ptr+"/properties", "properties must be an object")
	}
	for _, k := range p.keys {
		out.add(k, p.obj[k])
		ptrs[k] = ptr + "/properties/" + esc(k)
	}
	return out, ptrs
}
