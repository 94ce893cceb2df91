package opfs

import (
	"errors"
	"testing"
)

func TestParseContentRange(t *testing.T) {
	ok := map[string][3]int64{
		"bytes 0-9/10":         {0, 9, 10},
		"bytes 100-199/1000":   {100, 199, 1000},
		"bytes 5-5/*":          {5, 5, -1},
		" bytes 7-8/9 ":        {7, 8, 9},
		"bytes 0-0/1":          {0, 0, 1},
		"bytes 4096-8191/8192": {4096, 8191, 8192},
	}
	for s, w := range ok {
		a, b, c, err := ParseContentRange(s)
		if err != nil || a != w[0] || b != w[1] || c != w[2] {
			t.Errorf("%q: %d %d %d %v, want %v", s, a, b, c, err, w)
		}
	}
	for _, s := range []string{"", "bytes", "bytes 1-2", "items 0-1/2", "bytes -1-2/3", "bytes 5-4/10", "bytes 0-9/9", "bytes a-b/c", "bytes 0-1/x"} {
		if _, _, _, err := ParseContentRange(s); err == nil {
			t.Errorf("%q accepted", s)
		}
	}
}

func TestValidator(t *testing.T) {
	for _, c := range []struct{ etag, lm, want string }{
		{`"abc"`, "Mon", `"abc"`},
		{`W/"abc"`, "Mon", "Mon"}, // weak ETags cannot be used in If-Range (RFC 9110 13.1.5)
		{`W/"abc"`, "", ""},
		{"", "", ""},
	} {
		p := &Partial{ETag: c.etag, LastModified: c.lm}
		if got := p.Validator(); got != c.want {
			t.Errorf("%+v: %q, want %q", c, got, c.want)
		}
	}
}

func TestDecide(t *testing.T) {
	p := &Partial{URL: "/m", ETag: `"e1"`, Total: 1000}
	cases := []struct {
		name  string
		r     Response
		p     *Partial
		have  int64
		want  Decision
		field string // error field, "" for success
	}{
		{"fresh 200", Response{Status: 200, ContentLength: 1000}, nil, 0, Decision{Total: 1000}, ""},
		{"200 to a Range request restarts", Response{Status: 200, ContentLength: 1000}, p, 400, Decision{Total: 1000}, ""},
		{"206 continues", Response{Status: 206, ContentRange: "bytes 400-999/1000", ETag: `"e1"`}, p, 400, Decision{Resume: true, Total: 1000}, ""},
		{"206 at the wrong offset", Response{Status: 206, ContentRange: "bytes 0-999/1000"}, p, 400, Decision{}, "content-range"},
		{"206 short of the end", Response{Status: 206, ContentRange: "bytes 400-499/1000"}, p, 400, Decision{}, "content-range"},
		{"206 other total", Response{Status: 206, ContentRange: "bytes 400-1999/2000"}, p, 400, Decision{}, "content-range"},
		{"206 other etag", Response{Status: 206, ContentRange: "bytes 400-999/1000", ETag: `"e2"`}, p, 400, Decision{}, "etag"},
		{"206 unasked", Response{Status: 206, ContentRange: "bytes 0-999/1000"}, nil, 0, Decision{}, "status"},
		{"404", Response{Status: 404}, nil, 0, Decision{}, "status"},
		{"416", Response{Status: 416}, p, 1000, Decision{}, "status"},
	}
	for _, c := range cases {
		got, err := Decide(c.r, c.p, c.have)
		if c.field == "" {
			if err != nil || got != c.want {
				t.Errorf("%s: %+v %v, want %+v", c.name, got, err, c.want)
			}
			continue
		}
		var oe *Error
		if !errors.As(err, &oe) || oe.Kind != KindHTTP || oe.Field != c.field {
			t.Errorf("%s: %v, want http error on %s", c.name, err, c.field)
			continue
		}
		// An error status reaches the page as WebGGUFError.status; a 206
		// that does not fit is no HTTP error status.
		if want := map[int]int{404: 404, 416: 416}[c.r.Status]; oe.HTTPStatus() != want {
			t.Errorf("%s: status %d, want %d", c.name, oe.HTTPStatus(), want)
		}
	}
}

func TestParsePartial(t *testing.T) {
	p, err := ParsePartial([]byte(`{"url":"/m","etag":"\"e\"","total":-1}`))
	if err != nil || p.URL != "/m" || p.Total != -1 {
		t.Fatalf("%+v %v", p, err)
	}
	for _, b := range []string{`{"total":-2}`, `{`, `[]`} {
		if _, err := ParsePartial([]byte(b)); err == nil {
			t.Errorf("%s accepted", b)
		}
	}
}
