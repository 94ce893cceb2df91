// Package jsonschema converts a JSON Schema into a GBNF grammar for
// grammar-constrained sampling (package sample/grammar), with the
// semantics of llama.cpp's common/json-schema-to-grammar.cpp: the same
// rules, the same rule names and the same grammar text for the schemas
// llama.cpp's tests cover. Where llama.cpp would silently ignore a keyword
// (and so let the model write JSON the schema rejects), ToGrammar returns an
// *UnsupportedError naming the keyword by its JSON pointer instead; a schema
// that is not valid JSON Schema is a *SchemaError.
package jsonschema
