package worker

import (
	"context"
	"fmt"
	"runtime/debug"
	"sync"
	"sync/atomic"

	"github.com/webgguf/webgguf/glue"
)

// Transport carries frames to the page. Send must not keep frame after it
// returns (the buffer is reused) and must be safe for concurrent use.
type Transport interface {
	Send(frame []byte) error
}

// Server runs handlers for the request frames it is given and sends their
// events, responses and errors through its Transport.
type Server struct {
	mux   *Mux
	t     Transport
	name  string
	calls sync.Map // id → context.CancelFunc of calls in flight

	inFlight atomic.Int32
	handled  atomic.Int64
	canceled atomic.Int64
	rejected atomic.Int64

	scratch sync.Pool // *[]byte encode buffers
	frames  framePool
}

// NewServer returns a Server for the handlers of mux. It always answers
// HelloRequest, and StatsRequest where the test messages are registered
// (stats.go); engine is the name Hello reports.
func NewServer(mux *Mux, t Transport, engine string) *Server {
	return &Server{mux: mux, t: t, name: engine}
}

// Buffer returns a buffer of n bytes for an incoming frame; passing it to
// Deliver hands it back for reuse once the frame's handler has returned.
func (s *Server) Buffer(n int) []byte { return s.frames.get(n) }

// Deliver handles one incoming frame. It only decodes and dispatches: the
// handler runs on its own goroutine, so Deliver never blocks and may be called
// from a JS callback. frame must come from Buffer or be owned by the server
// from now on.
func (s *Server) Deliver(frame []byte) {
	if _, err := glue.DecodeHeader(frame); err != nil {
		s.rejected.Add(1)
		s.sendError(0, err) // no trustworthy call id: a protocol error for the whole channel
		s.frames.put(frame)
		return
	}
	h, msg, err := glue.Decode(frame)
	if err != nil {
		s.rejected.Add(1)
		if h.Kind == glue.KindRequest {
			s.sendError(h.ID, err) // the header was sound: fail that call, not the engine
		} else {
			s.sendError(0, err)
		}
		s.frames.put(frame)
		return
	}
	switch h.Kind {
	case glue.KindRequest:
		s.start(h, msg, frame)
	case glue.KindCancel:
		if c, ok := s.calls.Load(h.ID); ok {
			c.(context.CancelFunc)()
		}
		s.frames.put(frame)
	default:
		s.rejected.Add(1)
		s.sendError(0, NewError("protocol", fmt.Sprintf("worker got a %s frame (%s, id %d); it only takes requests and cancels", h.Kind, glue.TypeName(h.Type), h.ID), nil))
		s.frames.put(frame)
	}
}

func (s *Server) start(h glue.Header, msg any, frame []byte) {
	fn, ok := s.builtin(h.Type)
	if !ok {
		fn, ok = s.mux.lookup(h.Type)
	}
	if !ok {
		s.handled.Add(1)
		s.sendError(h.ID, NewError("unknown_request", "no handler for "+glue.TypeName(h.Type), nil))
		s.frames.put(frame)
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	if _, dup := s.calls.LoadOrStore(h.ID, cancel); dup {
		cancel()
		s.sendError(h.ID, NewError("duplicate_id", fmt.Sprintf("call id %d is already in flight", h.ID), nil))
		s.frames.put(frame)
		return
	}
	s.inFlight.Add(1)
	go s.run(ctx, cancel, h, fn, msg, frame)
}

func (s *Server) run(ctx context.Context, cancel context.CancelFunc, h glue.Header, fn handlerFunc, msg any, frame []byte) {
	st := &Stream{srv: s, id: h.ID}
	resp, err := s.call(ctx, fn, msg, st)
	st.close()
	if ctx.Err() != nil {
		s.canceled.Add(1)
		if err == nil {
			err = ctx.Err() // the page has stopped waiting; say why anyway
		}
	}
	s.calls.Delete(h.ID)
	cancel()
	// count before answering, so a page that has the answer sees the counters agree
	s.inFlight.Add(-1)
	s.handled.Add(1)
	if err == nil {
		if err = s.send(glue.KindResponse, h.ID, resp); err != nil {
			err = NewError("encode", "cannot encode the response", err)
		}
	}
	if err != nil {
		s.sendError(h.ID, err)
	}
	s.frames.put(frame) // the request's raw fields are dead now (the response is encoded)
}

// call runs a handler, turning a panic into an error of kind "panic".
func (s *Server) call(ctx context.Context, fn handlerFunc, msg any, st *Stream) (resp any, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = NewError("panic", fmt.Sprintf("handler panicked: %v\n%s", r, debug.Stack()), nil)
		}
	}()
	return fn(ctx, msg, st)
}

func (s *Server) sendError(id uint32, err error) {
	if serr := s.send(glue.KindError, id, wireError(err)); serr != nil {
		// an Error message always encodes unless its text is not UTF-8: say so in ASCII
		_ = s.send(glue.KindError, id, &glue.Error{Kind: KindOf(err), Message: fmt.Sprintf("%q", err.Error())})
	}
}

// send encodes one frame into a reused scratch buffer and hands it to the transport.
func (s *Server) send(kind glue.Kind, id uint32, msg any) error {
	bp, _ := s.scratch.Get().(*[]byte)
	if bp == nil {
		bp = new([]byte)
	}
	b, err := glue.AppendFrame((*bp)[:0], kind, id, msg)
	if err == nil {
		err = s.t.Send(b)
	}
	if cap(b) <= 16<<20 { // do not pin huge buffers
		*bp = b[:0]
		s.scratch.Put(bp)
	}
	return err
}

// statsBuiltin answers StatsRequest from the server's counters; set by
// stats.go where the test messages are registered (nil in the release
// engine, which does not serve StatsRequest).
var statsBuiltin func(s *Server) (typ uint32, fn handlerFunc)

// builtin answers the requests every engine serves.
func (s *Server) builtin(typ uint32) (handlerFunc, bool) {
	if typ == mustID(&glue.HelloRequest{}) {
		return func(context.Context, any, *Stream) (any, error) {
			types := []uint32{mustID(&glue.HelloRequest{})}
			if statsBuiltin != nil {
				st, _ := statsBuiltin(s)
				types = append(types, st)
			}
			types = append(types, s.mux.Types()...)
			return &glue.HelloResponse{Protocol: glue.Version, Engine: s.name, Requests: types}, nil
		}, true
	}
	if statsBuiltin != nil {
		if st, fn := statsBuiltin(s); typ == st {
			return fn, true
		}
	}
	return nil, false
}

func mustID(msg any) uint32 {
	id, ok := glue.TypeID(msg)
	if !ok {
		panic("worker: not in the schema")
	}
	return id
}

// Broadcast pushes an event not tied to any call (engine-wide logs, state
// changes); the page receives it through Engine.on('event').
func (s *Server) Broadcast(msg any) error { return s.send(glue.KindEvent, 0, msg) }
