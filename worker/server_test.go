package worker

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"testing"
	"time"

	"github.com/webgguf/webgguf/glue"
)

// pipe is a Transport that decodes what the server sends, like the page does.
type pipe struct {
	frames chan sent
}

type sent struct {
	h   glue.Header
	msg any
}

func newPipe() *pipe { return &pipe{frames: make(chan sent, 10000)} }

func (p *pipe) Send(frame []byte) error {
	b := append([]byte(nil), frame...) // the server reuses frame
	h, msg, err := glue.Decode(b)
	if err != nil {
		return fmt.Errorf("server sent an undecodable frame: %w", err)
	}
	p.frames <- sent{h, msg}
	return nil
}

func (p *pipe) next(t *testing.T) sent {
	t.Helper()
	select {
	case f := <-p.frames:
		return f
	case <-time.After(5 * time.Second):
		t.Fatal("no frame from the server")
	}
	return sent{}
}

func request(t *testing.T, s *Server, kind glue.Kind, id uint32, msg any) {
	t.Helper()
	b, err := glue.Encode(kind, id, msg)
	if err != nil {
		t.Fatal(err)
	}
	f := s.Buffer(len(b))
	copy(f, b)
	s.Deliver(f)
}

func testMux() *Mux {
	m := NewMux()
	HandleOn(m, func(ctx context.Context, req *glue.EchoRequest, st *Stream) (*glue.EchoResponse, error) {
		if req.DelayMs > 0 {
			select {
			case <-time.After(time.Duration(req.DelayMs) * time.Millisecond):
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}
		switch req.Text {
		case "fail":
			return nil, NewError("not_found", "model missing", fmt.Errorf("open weights: %w", io.ErrUnexpectedEOF))
		case "plain":
			return nil, fmt.Errorf("wrapped: %w", errors.New("root"))
		case "panic":
			panic("boom")
		}
		return &glue.EchoResponse{Data: append([]byte(nil), req.Data...), Text: req.Text}, nil
	})
	HandleOn(m, func(ctx context.Context, req *glue.StreamRequest, st *Stream) (*glue.StreamDone, error) {
		for i := range req.Count {
			if err := st.Send(&glue.StreamChunk{Seq: i}); err != nil {
				return nil, err
			}
			select {
			case <-time.After(time.Duration(req.IntervalMs) * time.Millisecond):
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}
		return &glue.StreamDone{Sent: req.Count}, nil
	})
	return m
}

func TestEchoAndHello(t *testing.T) {
	p := newPipe()
	s := NewServer(testMux(), p, "test")
	data := []byte{1, 2, 3, 250}
	request(t, s, glue.KindRequest, 7, &glue.EchoRequest{Data: data, Text: "x"})
	f := p.next(t)
	if f.h.Kind != glue.KindResponse || f.h.ID != 7 || !bytes.Equal(f.msg.(*glue.EchoResponse).Data, data) {
		t.Fatalf("got %+v %+v", f.h, f.msg)
	}
	request(t, s, glue.KindRequest, 8, &glue.HelloRequest{})
	f = p.next(t)
	hello := f.msg.(*glue.HelloResponse)
	if hello.Engine != "test" || hello.Protocol != glue.Version || len(hello.Requests) != 4 {
		t.Fatalf("hello %+v", hello)
	}
}

func TestTypedErrors(t *testing.T) {
	p := newPipe()
	s := NewServer(testMux(), p, "test")
	cases := []struct {
		text                 string
		kind, msg, cause, ck string
	}{
		{"fail", "not_found", "model missing", "open weights: unexpected EOF", "internal"},
		{"plain", "internal", "wrapped: root", "root", "internal"},
	}
	for i, c := range cases {
		request(t, s, glue.KindRequest, uint32(i+1), &glue.EchoRequest{Text: c.text})
		f := p.next(t)
		e, ok := f.msg.(*glue.Error)
		if !ok || f.h.Kind != glue.KindError || f.h.ID != uint32(i+1) {
			t.Fatalf("%s: got %+v %+v", c.text, f.h, f.msg)
		}
		if e.Kind != c.kind || e.Message != c.msg || e.Cause != c.cause || e.CauseKind != c.ck {
			t.Errorf("%s: got %+v", c.text, e)
		}
	}
	request(t, s, glue.KindRequest, 9, &glue.EchoRequest{Text: "panic"})
	if e := p.next(t).msg.(*glue.Error); e.Kind != "panic" || !bytes.Contains([]byte(e.Message), []byte("boom")) {
		t.Errorf("panic: %+v", e)
	}
	request(t, s, glue.KindRequest, 10, &glue.CrashRequest{})
	if e := p.next(t).msg.(*glue.Error); e.Kind != "unknown_request" {
		t.Errorf("unknown: %+v", e)
	}
}

func TestMalformedFrames(t *testing.T) {
	p := newPipe()
	s := NewServer(testMux(), p, "test")
	s.Deliver([]byte("not a frame at all, just text"))
	f := p.next(t)
	if e := f.msg.(*glue.Error); f.h.ID != 0 || e.Kind != "decode.bad_magic" {
		t.Fatalf("garbage: %+v %+v", f.h, f.msg)
	}
	good, _ := glue.Encode(glue.KindRequest, 42, &glue.EchoRequest{Data: []byte{1, 2, 3}})
	good[24] = 0xff // bytes length now overruns the frame
	s.Deliver(good)
	f = p.next(t)
	e := f.msg.(*glue.Error)
	if f.h.ID != 42 || e.Kind != "decode.truncated" || !bytes.Contains([]byte(e.Message), []byte("EchoRequest.Data at byte 24")) {
		t.Fatalf("bad body: %+v %+v", f.h, e)
	}
	request(t, s, glue.KindResponse, 5, &glue.EchoResponse{})
	if e := p.next(t).msg.(*glue.Error); e.Kind != "protocol" {
		t.Fatalf("response to worker: %+v", e)
	}
	request(t, s, glue.KindRequest, 1, &glue.EchoRequest{Text: "alive"})
	if r := p.next(t).msg.(*glue.EchoResponse); r.Text != "alive" {
		t.Fatalf("after malformed frames: %+v", r)
	}
}

func TestCancelMidStream(t *testing.T) {
	p := newPipe()
	s := NewServer(testMux(), p, "test")
	request(t, s, glue.KindRequest, 3, &glue.StreamRequest{Count: 1000, IntervalMs: 2})
	for i := range 3 {
		f := p.next(t)
		if f.h.Kind != glue.KindEvent || f.msg.(*glue.StreamChunk).Seq != uint32(i) {
			t.Fatalf("event %d: %+v %+v", i, f.h, f.msg)
		}
	}
	request(t, s, glue.KindCancel, 3, &glue.Cancel{Reason: "test"})
	for {
		f := p.next(t)
		if f.h.Kind == glue.KindEvent {
			continue // events already on their way
		}
		if e, ok := f.msg.(*glue.Error); !ok || e.Kind != "canceled" || f.h.ID != 3 {
			t.Fatalf("want canceled error, got %+v %+v", f.h, f.msg)
		}
		break
	}
	if s.canceled.Load() != 1 || s.inFlight.Load() != 0 {
		t.Fatalf("canceled %d in flight %d", s.canceled.Load(), s.inFlight.Load())
	}
}

func TestManyInFlight(t *testing.T) {
	p := newPipe()
	s := NewServer(testMux(), p, "test")
	const n = 100
	for i := range n {
		request(t, s, glue.KindRequest, uint32(i+1), &glue.EchoRequest{Data: []byte{byte(i), byte(i >> 8), 1}, DelayMs: uint32(20 - i%20)})
	}
	seen := map[uint32]bool{}
	for range n {
		f := p.next(t)
		r := f.msg.(*glue.EchoResponse)
		if seen[f.h.ID] || r.Data[0] != byte(f.h.ID-1) {
			t.Fatalf("id %d: %+v", f.h.ID, r)
		}
		seen[f.h.ID] = true
	}
	request(t, s, glue.KindRequest, 500, &glue.EchoRequest{DelayMs: 200})
	request(t, s, glue.KindRequest, 500, &glue.EchoRequest{})
	if e := p.next(t).msg.(*glue.Error); e.Kind != "duplicate_id" {
		t.Fatalf("duplicate id: %+v", e)
	}
}

func TestStreamSendAfterReturn(t *testing.T) {
	p := newPipe()
	m := NewMux()
	var kept *Stream
	HandleOn(m, func(ctx context.Context, req *glue.EchoRequest, st *Stream) (*glue.EchoResponse, error) {
		kept = st
		return nil, nil
	})
	s := NewServer(m, p, "test")
	request(t, s, glue.KindRequest, 1, &glue.EchoRequest{})
	if f := p.next(t); f.h.Kind != glue.KindResponse {
		t.Fatalf("%+v", f)
	}
	if err := kept.Send(&glue.Progress{Done: 1}); !errors.Is(err, ErrCallDone) {
		t.Fatalf("send after return: %v", err)
	}
}

func TestHandleRejectsBadTypes(t *testing.T) {
	m := NewMux()
	HandleOn(m, func(context.Context, *glue.EchoRequest, *Stream) (*glue.EchoResponse, error) { return nil, nil })
	for name, f := range map[string]func(){
		"duplicate": func() {
			HandleOn(m, func(context.Context, *glue.EchoRequest, *Stream) (*glue.EchoResponse, error) { return nil, nil })
		},
		"not a message": func() {
			HandleOn(m, func(context.Context, *struct{}, *Stream) (*glue.EchoResponse, error) { return nil, nil })
		},
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic", name)
				}
			}()
			f()
		}()
	}
}

func TestFramePool(t *testing.T) {
	var p framePool
	b := p.get(1000)
	if len(b) != 1000 || cap(b) != 1024 {
		t.Fatalf("len %d cap %d", len(b), cap(b))
	}
	b[0] = 9
	p.put(b)
	c := p.get(1 << 20)
	if len(c) != 1<<20 || cap(c) != 1<<20 {
		t.Fatalf("len %d cap %d", len(c), cap(c))
	}
	p.put(make([]byte, 100)) // foreign buffer: ignored, no panic
}

func TestBroadcast(t *testing.T) {
	p := newPipe()
	s := NewServer(NewMux(), p, "test")
	if err := Broadcast(&glue.Log{Message: "x"}); !errors.Is(err, ErrNotRunning) {
		t.Fatalf("before Run: %v", err)
	}
	if err := s.Broadcast(&glue.Log{Level: 4, Message: "model loaded"}); err != nil {
		t.Fatal(err)
	}
	f := p.next(t)
	if l, ok := f.msg.(*glue.Log); f.h.Kind != glue.KindEvent || f.h.ID != 0 || !ok || l.Message != "model loaded" || l.Level != 4 {
		t.Fatalf("got %+v %+v", f.h, f.msg)
	}
}
