// Package schematest holds what the tests of schema-constrained output
// share: an independent JSON Schema validator (santhosh-tekuri/jsonschema,
// not our converter) to judge outputs with, and grammar-constrained
// sampling on an engine. Only tests import it.
package schematest
