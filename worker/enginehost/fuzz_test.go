package enginehost

import (
	"context"
	"fmt"
	"math"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/webgguf/webgguf/glue"
	"github.com/webgguf/webgguf/worker"
)

// fuzzModel is the smallest llama fixture: loading it takes milliseconds
// and a token costs well under one, so a fuzzed generation (at most
// fuzzNCtx tokens) ends quickly.
const (
	fuzzModel = "../../testdata/models/tiny-llama-q8_0.gguf"
	fuzzNCtx  = 64
	// fuzzCallTimeout bounds one fuzzed call: a handler that has not
	// answered by then hangs.
	fuzzCallTimeout = 20 * time.Second
)

// FuzzHandlers feeds frames to the worker loop serving the engine handlers
// (Register), as the page would post them, on two hosts: one with
// tiny-llama loaded (fuzzNCtx positions) and one with no model, whose
// handlers stop at argument validation. For every frame:
//   - nothing panics (the worker turns a handler panic into an error of
//     kind "panic": that fails too) and the call ends within
//     fuzzCallTimeout;
//   - every failure is a typed error: its kind is one of the engine's
//     (bad-file, invalid-argument, no-model, context-full, ...), the worker
//     loop's (unknown_request, protocol) or the codec's (decode.*), never
//     "internal", "panic" or "encode";
//   - every frame the worker sends decodes, and a response is of the type
//     the request's handler returns;
//   - afterwards the host is usable: no call in flight, and the loaded
//     model (loaded again when the frame unloaded it or replaced it by a
//     failed load) tokenizes and generates exactly as before the frame; the
//     empty host still answers no-model.
//
// The seeds are a frame of every engine request with realistic and extreme
// values (fuzzRequests).
func FuzzHandlers(f *testing.F) {
	model, err := os.ReadFile(fuzzModel)
	if err != nil {
		f.Fatal(err)
	}
	loaded := newFuzzHost(f, model)
	empty := newFuzzHost(f, nil)
	for i, m := range fuzzRequests() {
		b, err := glue.Encode(glue.KindRequest, uint32(i+1), m)
		if err != nil {
			f.Fatalf("seed %d (%T): %v", i, m, err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		for _, fh := range []*fuzzHost{loaded, empty} {
			fh.deliver(t, b)
			fh.checkUsable(t)
		}
	})
}

// fuzzHost is a Host behind the worker loop, with a transport that keeps
// what the loop sends.
type fuzzHost struct {
	h      *Host
	srv    *worker.Server
	frames chan []byte
	model  []byte // the file loaded, nil for the empty host

	// what the loaded model answers to the probe (checkUsable)
	probeIDs, probeGen []int32
}

type chanTransport chan []byte

// Send copies the frame (the loop reuses its buffer). It never blocks the
// handler for long: the channel holds more than a call sends.
func (c chanTransport) Send(b []byte) error {
	select {
	case c <- append([]byte(nil), b...):
		return nil
	case <-time.After(fuzzCallTimeout):
		return fmt.Errorf("fuzz transport full")
	}
}

var fuzzProbe = &glue.GenerateRequest{Prompt: "Once upon a time", MaxTokens: 3, Temperature: 0, IgnoreEOS: true}

func newFuzzHost(tb testing.TB, model []byte) *fuzzHost {
	fh := &fuzzHost{h: New(), frames: make(chan []byte, 4096), model: model}
	mux := worker.NewMux()
	Register(mux, fh.h)
	fh.srv = worker.NewServer(mux, chanTransport(fh.frames), "fuzz")
	if model == nil {
		return fh
	}
	fh.load(tb)
	resp, e := fh.call(tb, &glue.TokenizeRequest{Text: fuzzProbe.Prompt, AddSpecial: true, ParseSpecial: true})
	if e != nil {
		tb.Fatalf("probe tokenize: %+v", e)
	}
	fh.probeIDs = resp.(*glue.Tokens).Ids
	resp, e = fh.call(tb, fuzzProbe)
	if e != nil {
		tb.Fatalf("probe generate: %+v", e)
	}
	fh.probeGen = resp.(*glue.GenerateResponse).Ids
	if len(fh.probeIDs) == 0 || len(fh.probeGen) != int(fuzzProbe.MaxTokens) {
		tb.Fatalf("probe: tokens %v, generated %v", fh.probeIDs, fh.probeGen)
	}
	return fh
}

func (fh *fuzzHost) load(tb testing.TB) {
	if _, err := fh.h.Load(context.Background(), fh.model, LoadOptions{Name: "fuzz", NCtx: fuzzNCtx, Backend: "cpu"}); err != nil {
		tb.Fatal(err)
	}
}

// fuzzCallID numbers the calls the fuzz target makes itself; fuzzed frames
// run one at a time, so their ids never collide with these.
var fuzzCallID struct {
	sync.Mutex
	n uint32
}

// call sends msg as a request through the worker loop and returns the
// response message or the error.
func (fh *fuzzHost) call(tb testing.TB, msg any) (any, *glue.Error) {
	tb.Helper()
	fuzzCallID.Lock()
	fuzzCallID.n++
	id := 1<<31 | fuzzCallID.n
	fuzzCallID.Unlock()
	b, err := glue.Encode(glue.KindRequest, id, msg)
	if err != nil {
		tb.Fatal(err)
	}
	return fh.deliver(tb, b)
}

// deliver hands one frame to the worker loop and checks what comes back;
// for a request it waits for the call's end and returns its response or
// error.
func (fh *fuzzHost) deliver(tb testing.TB, b []byte) (any, *glue.Error) {
	tb.Helper()
	hd, req, derr := glue.Decode(b)
	buf := fh.srv.Buffer(len(b))
	copy(buf, b)
	fh.srv.Deliver(buf)
	if derr != nil || hd.Kind != glue.KindRequest {
		// The loop rejects it (or, for a cancel, drops it) before
		// returning: whatever it sent is queued by now.
		for {
			select {
			case f := <-fh.frames:
				h, msg := decodeSent(tb, f)
				if h.Kind != glue.KindError {
					tb.Fatalf("a rejected %s frame got a %s frame back", hd.Kind, h.Kind)
				}
				checkKind(tb, msg.(*glue.Error), b)
			default:
				return nil, nil
			}
		}
	}
	deadline := time.NewTimer(fuzzCallTimeout)
	defer deadline.Stop()
	for {
		select {
		case f := <-fh.frames:
			h, msg := decodeSent(tb, f)
			if h.ID != hd.ID {
				tb.Fatalf("call %d: got a %s frame for call %d", hd.ID, h.Kind, h.ID)
			}
			switch h.Kind {
			case glue.KindEvent:
				continue
			case glue.KindError:
				e := msg.(*glue.Error)
				checkKind(tb, e, b)
				return nil, e
			case glue.KindResponse:
				if want, ok := responseOf[fmt.Sprintf("%T", req)]; ok && fmt.Sprintf("%T", msg) != want {
					tb.Fatalf("%T answered with %T, want %s", req, msg, want)
				}
				return msg, nil
			default:
				tb.Fatalf("call %d: unexpected %s frame", hd.ID, h.Kind)
			}
		case <-deadline.C:
			tb.Fatalf("%T (call %d) did not end within %v", req, hd.ID, fuzzCallTimeout)
		}
	}
}

// responseOf is the response type of each engine request.
var responseOf = map[string]string{
	"*glue.ModelLoadRequest":    "*glue.ModelInfo",
	"*glue.InfoRequest":         "*glue.ModelInfo",
	"*glue.TokenizeRequest":     "*glue.Tokens",
	"*glue.DetokenizeRequest":   "*glue.Text",
	"*glue.ChatTemplateRequest": "*glue.Text",
	"*glue.GenerateRequest":     "*glue.GenerateResponse",
	"*glue.UnloadRequest":       "*glue.UnloadResponse",
	"*glue.HelloRequest":        "*glue.HelloResponse",
	"*glue.StatsRequest":        "*glue.StatsResponse",
}

func decodeSent(tb testing.TB, f []byte) (glue.Header, any) {
	tb.Helper()
	h, msg, err := glue.Decode(f)
	if err != nil {
		tb.Fatalf("the worker sent a frame that does not decode: %v", err)
	}
	return h, msg
}

// typedKinds are the error kinds a request may fail with: the engine's, the
// worker loop's for a request it cannot route, and decode.* for a frame it
// cannot read.
var typedKinds = map[string]bool{
	KindBadFile: true, KindUnsupportedModel: true, KindNoModel: true, KindContextFull: true,
	KindInvalidArgument: true, KindGPUUnavailable: true, KindOutOfMemory: true,
	"unknown_request": true, "protocol": true,
}

func checkKind(tb testing.TB, e *glue.Error, frame []byte) {
	tb.Helper()
	if typedKinds[e.Kind] || strings.HasPrefix(e.Kind, "decode.") {
		return
	}
	tb.Fatalf("untyped error kind %q: %s (cause %q, %s)\nframe %x", e.Kind, e.Message, e.Cause, e.CauseKind, frame)
}

// checkUsable asserts the host still serves requests as before the frame.
func (fh *fuzzHost) checkUsable(tb testing.TB) {
	tb.Helper()
	resp, e := fh.call(tb, &glue.StatsRequest{})
	if e != nil || resp.(*glue.StatsResponse).InFlight != 0 {
		tb.Fatalf("stats after the frame: %+v %+v", resp, e)
	}
	resp, e = fh.call(tb, &glue.InfoRequest{})
	if e != nil {
		tb.Fatalf("info after the frame: %+v", e)
	}
	if fh.model == nil {
		if resp.(*glue.ModelInfo).Loaded {
			if _, err := fh.h.Unload(context.Background()); err != nil {
				tb.Fatal(err)
			}
		}
		if _, e := fh.call(tb, &glue.TokenizeRequest{Text: "x"}); e == nil || e.Kind != KindNoModel {
			tb.Fatalf("tokenize without a model: %+v", e)
		}
		return
	}
	if info := resp.(*glue.ModelInfo); !info.Loaded || info.Name != "fuzz" || info.NCtx != fuzzNCtx {
		fh.load(tb) // the frame unloaded the model or failed to replace it
	}
	resp, e = fh.call(tb, &glue.TokenizeRequest{Text: fuzzProbe.Prompt, AddSpecial: true, ParseSpecial: true})
	if e != nil || !slices.Equal(resp.(*glue.Tokens).Ids, fh.probeIDs) {
		tb.Fatalf("tokenize after the frame: %+v %+v, want %v", resp, e, fh.probeIDs)
	}
	resp, e = fh.call(tb, fuzzProbe)
	if e != nil || !slices.Equal(resp.(*glue.GenerateResponse).Ids, fh.probeGen) {
		tb.Fatalf("generate after the frame: %+v %+v, want %v", resp, e, fh.probeGen)
	}
}

// fuzzRequests are the seeds: every request the engine serves, as the npm
// package sends them and at the edges of what its validation must catch.
func fuzzRequests() []any {
	nan, inf := float32(math.NaN()), float32(math.Inf(1))
	ggufHead := append([]byte("GGUF\x03\x00\x00\x00"), make([]byte, 16)...)
	long := strings.Repeat("The quick brown fox jumps over the lazy dog. 日本語 \U0001F600 ", 40)
	return []any{
		&glue.HelloRequest{}, &glue.StatsRequest{}, &glue.InfoRequest{}, &glue.UnloadRequest{},
		&glue.EchoRequest{Text: "not registered here"},
		&glue.ModelLoadRequest{Data: ggufHead, Name: "x.gguf", NCtx: 4096, Backend: "auto"},
		&glue.ModelLoadRequest{Data: []byte("GGUF"), Backend: "webgpu"},
		&glue.ModelLoadRequest{Data: ggufHead, Backend: "metal"},
		&glue.ModelLoadRequest{Key: "Llama-3.2-1B-Instruct-Q4_0.gguf-3f2a9c0d11e4"},
		&glue.ModelLoadRequest{URL: "https://example.com/m.gguf", BlobID: "b"},
		&glue.ModelLoadRequest{NCtx: math.MaxUint32},
		&glue.TokenizeRequest{Text: "Hello, world! <|im_start|>user\nhi<|im_end|>", AddSpecial: true, ParseSpecial: true},
		&glue.TokenizeRequest{Text: long},
		&glue.TokenizeRequest{},
		&glue.DetokenizeRequest{Ids: []int32{1, 2, 3, 100, 200}, Special: true},
		&glue.DetokenizeRequest{Ids: []int32{-1, math.MaxInt32, math.MinInt32}},
		&glue.DetokenizeRequest{},
		&glue.ChatTemplateRequest{Roles: []string{"system", "user", "assistant", "user"}, Contents: []string{"Be brief.", "Hi!", "Hello!", "A joke?"}, AddGenerationPrompt: true},
		&glue.ChatTemplateRequest{Roles: []string{"user"}, Contents: []string{"hi"}, Template: "{% for m in messages %}<|{{ m.role }}|>{{ m.content }}\n{% endfor %}"},
		&glue.ChatTemplateRequest{Roles: []string{"user"}, Contents: []string{"hi"}, Template: "{% for m in messages %}{{ m.content"},
		&glue.ChatTemplateRequest{Roles: []string{"user"}, Contents: []string{"hi"}, Template: "{{ raise_exception('roles must alternate') }}"},
		&glue.ChatTemplateRequest{Roles: []string{"user", ""}, Contents: []string{"a"}},
		&glue.ChatTemplateRequest{Roles: []string{""}, Contents: []string{"a"}},
		&glue.GenerateRequest{Prompt: "Once upon a time", MaxTokens: 8, Temperature: 0.8, TopK: 40, TopP: 0.95, MinP: 0.05, RepeatPenalty: 1.1, PenaltyLastN: 64, Seed: 42, Stop: []string{"\n\n", "</s>"}},
		&glue.GenerateRequest{Chat: true, Roles: []string{"system", "user"}, Contents: []string{"Be brief.", "What is GGUF?"}, MaxTokens: 4, TopK: 1},
		&glue.GenerateRequest{Prompt: long, MaxTokens: math.MaxInt32, IgnoreEOS: true},
		&glue.GenerateRequest{Prompt: "x", MaxTokens: math.MinInt32, Temperature: 2, TopK: math.MaxInt32, TopP: 1, MinP: 1, Seed: math.MaxUint32},
		&glue.GenerateRequest{Prompt: "x", Temperature: nan},
		&glue.GenerateRequest{Prompt: "x", TopP: inf, MinP: -inf},
		&glue.GenerateRequest{Prompt: "x", RepeatPenalty: -1, FrequencyPenalty: 1e30, PresencePenalty: -1e30, PenaltyLastN: 1 << 16},
		&glue.GenerateRequest{Prompt: "x", PenaltyLastN: -1},
		&glue.GenerateRequest{Prompt: "x", TopK: -5, TopP: -1, MinP: 2, Temperature: -1},
		&glue.GenerateRequest{Prompt: "x", Stop: make([]string, 17)},
		&glue.GenerateRequest{Prompt: "x", Stop: []string{"", "a"}, MaxTokens: 2},
		&glue.GenerateRequest{Chat: true},
		&glue.GenerateRequest{Chat: true, Roles: []string{"user"}},
		&glue.GenerateRequest{},
	}
}
