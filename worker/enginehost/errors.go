package enginehost

import (
	"errors"
	"fmt"
	"time"

	"github.com/webgguf/webgguf/chat"
	"github.com/webgguf/webgguf/compute"
	"github.com/webgguf/webgguf/engine"
	"github.com/webgguf/webgguf/gguf"
	"github.com/webgguf/webgguf/model"
	"github.com/webgguf/webgguf/opfs"
	"github.com/webgguf/webgguf/tokenizer"
	"github.com/webgguf/webgguf/webgpu"
	"github.com/webgguf/webgguf/worker"
)

// Error kinds sent to the page; jsbindings maps them to WebGGUFError codes.
const (
	KindBadFile          = "bad-file"
	KindUnsupportedModel = "unsupported-model"
	KindNoModel          = "no-model"
	KindContextFull      = "context-full"
	KindInvalidArgument  = "invalid-argument"
	KindGPUUnavailable   = "gpu-unavailable"
	KindOutOfMemory      = "out-of-memory"
	KindDeviceLost       = "device-lost"
)

// errNoModel is returned by requests that need a model before one is loaded.
var errNoModel = worker.NewError(KindNoModel, "no model is loaded: call load() first", nil)

// invalid reports a request field the host cannot use.
func invalid(msg string) error { return worker.NewError(KindInvalidArgument, msg, nil) }

// classifyLoad gives a load failure the kind a person can act on: the file
// is broken (bad-file), it is a model this engine does not run
// (unsupported-model), or it does not fit (out-of-memory).
func classifyLoad(err error) error {
	var (
		fe  *gguf.FormatError
		ce  *gguf.CodecError
		ua  *model.UnknownArchError
		ke  *model.KeyError
		mt  *model.MissingTensorError
		se  *model.ShapeError
		tu  *tokenizer.UnsupportedError
		tm  *tokenizer.MetadataError
		me  *engine.MemoryError
		own *worker.Error
		oe  *opfs.Error
	)
	switch {
	case errors.Is(err, webgpu.ErrDeviceLost):
		// Before the source's kinds: a weight stream into a lost device
		// fails inside the source's error (opfs.gpu).
		return deviceLostError(err)
	case errors.As(err, &own):
		return err
	case errors.As(err, &oe) && oe.Kind != opfs.KindFormat:
		// The source failed (not cached, network, HTTP, busy, GPU write),
		// not the file: gguf wraps a reader's error in its own, and the
		// page must see the source's kind ("opfs.network", ...).
		return worker.NewError("opfs."+oe.Kind, "the model could not be read", err)
	case errors.As(err, &oe):
		return worker.NewError(KindBadFile, "the file is not a usable GGUF model", err)
	case errors.As(err, &ua), errors.As(err, &tu):
		return worker.NewError(KindUnsupportedModel, "this model is not supported", err)
	case errors.As(err, &me):
		return worker.NewError(KindOutOfMemory, "the model does not fit in memory; try a smaller model or context", err)
	case errors.As(err, &fe), errors.As(err, &ce), errors.As(err, &ke), errors.As(err, &mt), errors.As(err, &se), errors.As(err, &tm):
		return worker.NewError(KindBadFile, "the file is not a usable GGUF model", err)
	}
	return err
}

// deviceLostError is the error of a call that failed because the GPU
// device was lost (a driver reset, the GPU process crashed, the device was
// destroyed): nothing on that device is usable, but a new one may be.
func deviceLostError(cause error) error {
	return worker.NewError(KindDeviceLost, "the GPU device was lost; load the model again (it opens a new device) or load it with backend 'cpu'", cause)
}

// lostDevice returns the device-lost error of be's device: nil when be is
// not a GPU backend or its device is usable.
func lostDevice(be compute.Backend) error {
	if d := deviceOf(be); d != nil {
		return d.Lost()
	}
	return nil
}

func deviceOf(be compute.Backend) *webgpu.Device {
	if d, ok := be.(interface{ Device() *webgpu.Device }); ok {
		return d.Device()
	}
	return nil
}

// classifyDeviceLost returns err as a device-lost error when it says so or
// when be's device is lost; nil otherwise. A call on a lost device can fail
// in other ways first: in Chromium, destroying a device rejects the
// pending mapAsync ("Buffer was unmapped before mapping was resolved")
// before device.lost settles, so a GPU call that failed for no reason of
// its own waits up to lostGrace for the device to say it is lost.
func classifyDeviceLost(err error, be compute.Backend) error {
	if errors.Is(err, webgpu.ErrDeviceLost) {
		return deviceLostError(err)
	}
	d := deviceOf(be)
	if d == nil {
		return nil
	}
	l := d.Lost()
	for waited := time.Duration(0); l == nil && waited < lostGrace; waited += lostPoll {
		time.Sleep(lostPoll) // in the browser: returns to the event loop
		l = d.Lost()
	}
	if l != nil {
		return deviceLostError(fmt.Errorf("%w (the call failed with: %w)", l, err))
	}
	return nil
}

// lostPoll is the step of classifyDeviceLost's wait.
const lostPoll = 5 * time.Millisecond

// classifyRun maps a generation failure: a full context gets its own kind.
func classifyRun(err error) error {
	var (
		cf *engine.ContextFullError
		me *engine.ModeError
	)
	if errors.As(err, &cf) {
		return worker.NewError(KindContextFull, "the prompt does not fit the context; shorten the conversation or load with a larger contextSize", err)
	}
	if errors.As(err, &me) {
		return worker.NewError(KindInvalidArgument, "the loaded model is an embedding model: it does not generate text (use embeddings.create)", err)
	}
	return err
}

// classifyTemplate maps a chat template failure (the model's template or
// the caller's): it does not parse, it raised an exception (e.g. "roles
// must alternate"), it failed or exceeded a limit rendering these messages.
// The caller can act on each (other messages, its own template), so each is
// invalid-argument, not an internal error of the engine.
func classifyTemplate(err error) error {
	var (
		se *chat.SyntaxError
		re *chat.RuntimeError
		ra *chat.RaisedError
		ve *chat.ValueError
		le *chat.LimitError
	)
	switch {
	case errors.As(err, &se):
		return worker.NewError(KindInvalidArgument, "the chat template does not parse", err)
	case errors.As(err, &ra), errors.As(err, &re), errors.As(err, &ve), errors.As(err, &le):
		return worker.NewError(KindInvalidArgument, "the chat template cannot render these messages", err)
	}
	return err
}
