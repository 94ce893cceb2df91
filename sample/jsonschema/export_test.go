package jsonschema

// Schema20 lets the external benchmarks use schema20.
var Schema20 = schema20
