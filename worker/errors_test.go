package worker

import (
	"errors"
	"fmt"
	"testing"
)

type statusErr struct{ status int }

func (e statusErr) Error() string   { return fmt.Sprintf("HTTP %d", e.status) }
func (e statusErr) HTTPStatus() int { return e.status }

// TestWireErrorStatus: the HTTP status of an error anywhere in the chain
// (wrapped, joined, under a typed Error) reaches glue.Error.Status; errors
// without one send 0.
func TestWireErrorStatus(t *testing.T) {
	for _, c := range []struct {
		err  error
		want uint32
	}{
		{statusErr{404}, 404},
		{fmt.Errorf("load: %w", statusErr{500}), 500},
		{NewError("opfs.http", "the model could not be read", errors.Join(errors.New("gguf"), statusErr{403})), 403},
		{fmt.Errorf("outer: %w", fmt.Errorf("%w %w", statusErr{0}, statusErr{410})), 410},
		{errors.New("plain"), 0},
	} {
		if got := wireError(c.err).Status; got != c.want {
			t.Errorf("%v: status %d, want %d", c.err, got, c.want)
		}
	}
}
