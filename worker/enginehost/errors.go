package enginehost

import (
	"errors"

	"github.com/webgguf/webgguf/chat"
	"github.com/webgguf/webgguf/engine"
	"github.com/webgguf/webgguf/gguf"
	"github.com/webgguf/webgguf/model"
	"github.com/webgguf/webgguf/opfs"
	"github.com/webgguf/webgguf/tokenizer"
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

// classifyRun maps a generation failure: a full context gets its own kind.
func classifyRun(err error) error {
	var cf *engine.ContextFullError
	if errors.As(err, &cf) {
		return worker.NewError(KindContextFull, "the prompt does not fit the context; shorten the conversation or load with a larger contextSize", err)
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
