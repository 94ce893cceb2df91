package worker

import (
	"errors"
	"sync/atomic"
)

// ErrNotRunning is returned by Broadcast before Run has started the server.
var ErrNotRunning = errors.New("worker: not running")

// running is the Server that Run serves, for Broadcast.
var running atomic.Pointer[Server]

// Broadcast pushes an event not tied to a call through the Server that Run
// serves (see Server.Broadcast).
func Broadcast(msg any) error {
	s := running.Load()
	if s == nil {
		return ErrNotRunning
	}
	return s.Broadcast(msg)
}
