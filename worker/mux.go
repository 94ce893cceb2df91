package worker

import (
	"context"
	"fmt"
	"sort"
	"sync"

	"github.com/webgguf/webgguf/glue"
)

// Stream lets a handler push events (progress, tokens, logs) to the page
// before its response; they arrive in the order sent, before the response.
type Stream struct {
	srv *Server
	id  uint32
	mu  sync.Mutex
	end bool
}

// Send pushes one event message (a registered glue message) for this call.
// It fails once the handler has returned or the call was canceled.
func (s *Stream) Send(msg any) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.end {
		return ErrCallDone
	}
	return s.srv.send(glue.KindEvent, s.id, msg)
}

// Progress pushes a glue.Progress event.
func (s *Stream) Progress(stage string, done, total int64) error {
	return s.Send(&glue.Progress{Stage: stage, Done: done, Total: total})
}

// Log pushes a glue.Log event (slog levels: -4 debug, 0 info, 4 warn, 8 error).
func (s *Stream) Log(level int32, msg string) error {
	return s.Send(&glue.Log{Level: level, Message: msg})
}

func (s *Stream) close() {
	s.mu.Lock()
	s.end = true
	s.mu.Unlock()
}

// handlerFunc is a registered handler with its types erased.
type handlerFunc func(ctx context.Context, req any, s *Stream) (any, error)

// Mux maps request type ids to handlers.
type Mux struct {
	mu       sync.RWMutex
	handlers map[uint32]handlerFunc
}

// NewMux returns an empty Mux.
func NewMux() *Mux { return &Mux{handlers: map[uint32]handlerFunc{}} }

// DefaultMux is the Mux that Handle registers on and Run serves.
var DefaultMux = NewMux()

// Handle registers fn on DefaultMux for requests of type Req.
func Handle[Req, Resp any](fn func(ctx context.Context, req *Req, s *Stream) (*Resp, error)) {
	HandleOn(DefaultMux, fn)
}

// HandleOn registers fn on m for requests of type Req. Req and Resp must be
// messages of the glue schema; registering a type twice panics (it is a
// programming error, found at init).
func HandleOn[Req, Resp any](m *Mux, fn func(ctx context.Context, req *Req, s *Stream) (*Resp, error)) {
	id, ok := glue.TypeID((*Req)(nil))
	if !ok {
		panic(fmt.Sprintf("worker: request type %T is not in the glue schema", (*Req)(nil)))
	}
	if _, ok := glue.TypeID((*Resp)(nil)); !ok {
		panic(fmt.Sprintf("worker: response type %T is not in the glue schema", (*Resp)(nil)))
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, dup := m.handlers[id]; dup {
		panic(fmt.Sprintf("worker: a handler for %s is already registered", glue.TypeName(id)))
	}
	m.handlers[id] = func(ctx context.Context, req any, s *Stream) (any, error) {
		resp, err := fn(ctx, req.(*Req), s)
		if err != nil {
			return nil, err
		}
		if resp == nil {
			return new(Resp), nil
		}
		return resp, nil
	}
}

func (m *Mux) lookup(id uint32) (handlerFunc, bool) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	h, ok := m.handlers[id]
	return h, ok
}

// Types returns the registered request type ids in order.
func (m *Mux) Types() []uint32 {
	m.mu.RLock()
	defer m.mu.RUnlock()
	out := make([]uint32, 0, len(m.handlers))
	for id := range m.handlers {
		out = append(out, id)
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}
