package opfs

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// Partial is the resume record of a shard being downloaded: which URL, and
// the validators and length the server gave, so that a later Range request
// continues the same file and not a changed one.
type Partial struct {
	URL          string `json:"url"`
	ETag         string `json:"etag"`
	LastModified string `json:"lastModified"`
	Total        int64  `json:"total"` // -1 when the server sent no length
}

// ParsePartial decodes a resume record; a bad one means "start over".
func ParsePartial(b []byte) (*Partial, error) {
	if len(b) > MaxMetaBytes {
		return nil, &Error{Kind: KindInvalid, Op: "resume", Field: "partial", Offset: MaxMetaBytes, Msg: "too large"}
	}
	var p Partial
	if err := json.Unmarshal(b, &p); err != nil {
		return nil, &Error{Kind: KindInvalid, Op: "resume", Field: "partial", Offset: -1, Err: err}
	}
	if p.Total < -1 {
		return nil, &Error{Kind: KindInvalid, Op: "resume", Field: "total", Offset: -1, Msg: "negative"}
	}
	return &p, nil
}

// Validator is the If-Range value for resuming p: its ETag when strong
// (RFC 9110 forbids weak ETags in If-Range), else its Last-Modified date,
// else "" — no way to prove the file is unchanged, so restart.
func (p *Partial) Validator() string {
	if p.ETag != "" && !strings.HasPrefix(p.ETag, "W/") {
		return p.ETag
	}
	return p.LastModified
}

// Response is what the loader needs of an HTTP response's head.
type Response struct {
	Status        int
	ContentLength int64 // -1 when absent
	ContentRange  string
	ETag          string
	LastModified  string
}

// Decision says how to treat a response to a request for a shard of which have
// bytes are already on disk.
type Decision struct {
	Resume bool  // append at have (a 206 continuing the partial file)
	Total  int64 // the shard's full size, -1 when unknown
}

// Decide checks a response against the partial record p (nil for a fresh
// download) and the have bytes kept: a 206 must start exactly at have, carry
// the same total and the same validator; a 200 restarts from byte 0 (the
// server ignored Range, or If-Range found the file changed). Anything else
// is a typed error naming the header at fault.
func Decide(r Response, p *Partial, have int64) (Decision, error) {
	bad := func(field, msg string) (Decision, error) {
		return Decision{}, &Error{Kind: KindHTTP, Op: "download", Field: field, Offset: -1, Msg: msg}
	}
	switch r.Status {
	case 200:
		return Decision{Total: r.ContentLength}, nil
	case 206:
		if have == 0 || p == nil {
			return bad("status", "206 to a request without Range")
		}
		start, end, total, err := ParseContentRange(r.ContentRange)
		if err != nil {
			return bad("content-range", err.Error())
		}
		if start != have {
			return bad("content-range", fmt.Sprintf("starts at %d, want %d", start, have))
		}
		if total < 0 || end != total-1 {
			return bad("content-range", "does not run to the end of the file")
		}
		if p.Total >= 0 && total != p.Total {
			return bad("content-range", fmt.Sprintf("total %d, the partial file was of %d", total, p.Total))
		}
		if p.ETag != "" && r.ETag != "" && r.ETag != p.ETag {
			return bad("etag", "changed while resuming")
		}
		return Decision{Resume: true, Total: total}, nil
	}
	return Decision{}, &Error{Kind: KindHTTP, Op: "download", Field: "status", Offset: -1, Msg: fmt.Sprintf("HTTP %d", r.Status), Status: r.Status}
}

// ParseContentRange parses "bytes START-END/TOTAL" (TOTAL may be "*",
// returned as -1).
func ParseContentRange(s string) (start, end, total int64, err error) {
	rest, ok := strings.CutPrefix(strings.TrimSpace(s), "bytes ")
	if !ok {
		return 0, 0, 0, fmt.Errorf("%q: not a byte range", s)
	}
	rng, tot, ok := strings.Cut(rest, "/")
	if !ok {
		return 0, 0, 0, fmt.Errorf("%q: no total", s)
	}
	a, b, ok := strings.Cut(rng, "-")
	if !ok {
		return 0, 0, 0, fmt.Errorf("%q: no range", s)
	}
	if start, err = strconv.ParseInt(a, 10, 64); err != nil || start < 0 {
		return 0, 0, 0, fmt.Errorf("%q: bad start", s)
	}
	if end, err = strconv.ParseInt(b, 10, 64); err != nil || end < start {
		return 0, 0, 0, fmt.Errorf("%q: bad end", s)
	}
	total = -1
	if tot != "*" {
		if total, err = strconv.ParseInt(tot, 10, 64); err != nil || total <= end {
			return 0, 0, 0, fmt.Errorf("%q: bad total", s)
		}
	}
	return start, end, total, nil
}
