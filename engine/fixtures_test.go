package engine_test

import (
	"testing"

	"github.com/webgguf/webgguf/engine"
	"github.com/webgguf/webgguf/engine/enginetest"
)

// TestFixturesMatchLlamaCpp runs the conformance suite's fixture judgement
// (every fixture model, every prompt; refcheck's rule) on the CPU backend.
func TestFixturesMatchLlamaCpp(t *testing.T) { enginetest.Fixtures(t, nil, nil, 0) }

// TestShapesMatchFloat64Reference runs the conformance suite's generated
// shapes against the float64 reference on the CPU backend.
func TestShapesMatchFloat64Reference(t *testing.T) { enginetest.Shapes(t, nil) }

func loadFixture(t testing.TB, name string, opts engine.Options) *engine.Engine {
	t.Helper()
	e, _ := enginetest.Load(t, name, nil, opts)
	return e
}
