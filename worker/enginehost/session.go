package enginehost

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"

	"github.com/webgguf/webgguf/engine"
	"github.com/webgguf/webgguf/glue"
	"github.com/webgguf/webgguf/worker"
)

// SaveSession saves the loaded model's session (engine.Session.Save) with
// meta, JSON text or "".
func (h *Host) SaveSession(ctx context.Context, meta string) (*glue.SessionData, error) {
	var raw json.RawMessage
	if meta != "" {
		if !json.Valid([]byte(meta)) {
			return nil, invalid("meta must be JSON text")
		}
		raw = json.RawMessage(meta)
	}
	release, err := h.acquire(ctx)
	if err != nil {
		return nil, err
	}
	defer release()
	m, err := h.model()
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	if err := m.sess.Save(&buf, raw); err != nil {
		if lost := classifyDeviceLost(err, m.be); lost != nil {
			h.unloadLocked()
			return nil, lost
		}
		return nil, err
	}
	return &glue.SessionData{Data: buf.Bytes(), Tokens: int32(len(m.sess.Tokens()))}, nil
}

// RestoreSession replaces the loaded model's session with a saved one
// (engine.Session.Restore): bytes that are not an intact save are
// bad-file, a save of another model or context invalid-argument, and
// either leaves the session as it was.
func (h *Host) RestoreSession(ctx context.Context, data []byte) (*glue.SessionRestored, error) {
	release, err := h.acquire(ctx)
	if err != nil {
		return nil, err
	}
	defer release()
	m, err := h.model()
	if err != nil {
		return nil, err
	}
	hd, err := m.sess.Restore(bytes.NewReader(data))
	var fe *engine.SessionFileError
	var mm *engine.SessionMismatchError
	switch {
	case errors.As(err, &fe):
		return nil, worker.NewError(KindBadFile, "not an intact saved session", err)
	case errors.As(err, &mm):
		return nil, worker.NewError(KindInvalidArgument, "the session was saved with another model or context", err)
	case err != nil:
		if lost := classifyDeviceLost(err, m.be); lost != nil {
			h.unloadLocked()
			return nil, lost
		}
		return nil, err
	}
	return &glue.SessionRestored{Tokens: int32(len(hd.Tokens)), Meta: string(hd.Meta)}, nil
}
