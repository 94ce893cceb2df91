package opfs

import "fmt"

// Error kinds: the page sees them as glue error kinds "opfs.<kind>".
const (
	KindQuota       = "quota"       // storage quota exhausted; nothing was kept
	KindNetwork     = "network"     // the connection failed and retries ran out; partial kept for resume
	KindHTTP        = "http"        // the server answered with an unusable status or headers
	KindIntegrity   = "integrity"   // size or SHA-256 mismatch; nothing was kept
	KindNotFound    = "not_found"   // no such cache entry
	KindBusy        = "busy"        // the file is open elsewhere (sync access handles are exclusive)
	KindInvalid     = "invalid"     // a bad argument or corrupt metadata
	KindUnsupported = "unsupported" // the browser lacks OPFS or a needed call
	KindFormat      = "format"      // the model file is not loadable
	KindGPU         = "gpu"         // a GPU allocation or write failed
)

// Error is a typed error of the cache or the loader. Field and Offset say
// where in untrusted input (HTTP headers, metadata, the model file) the
// problem is, when that applies (Offset -1: not applicable).
type Error struct {
	Kind   string
	Op     string // "download", "load", "list", ...
	Key    string
	Field  string
	Offset int64
	Msg    string
	Err    error
	// Status is the HTTP status of a response that failed the request
	// (0: none), sent to the page as the error's status.
	Status int
}

func (e *Error) Error() string {
	s := "opfs: " + e.Op
	if e.Key != "" {
		s += " " + e.Key
	}
	s += ": " + e.Kind
	if e.Field != "" {
		s += ": " + e.Field
	}
	if e.Offset >= 0 {
		s += fmt.Sprintf(" at byte %d", e.Offset)
	}
	if e.Msg != "" {
		s += ": " + e.Msg
	}
	if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	return s
}

// HTTPStatus is e.Status: the page's WebGGUFError.status.
func (e *Error) HTTPStatus() int { return e.Status }

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

// GlueKind is the error kind the worker reports to the page: "opfs.<Kind>".
func (e *Error) GlueKind() string { return "opfs." + e.Kind }
