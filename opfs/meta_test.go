package opfs

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"
)

func validMeta() *Meta {
	return &Meta{Version: 1, Key: "m-1", URLs: []string{"/a", "/b"}, Sizes: []int64{10, 20}, ETags: []string{`"x"`, ""},
		LastModified: []string{"", "Mon, 02 Jan 2006 15:04:05 GMT"}, Created: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}
}

func TestMetaRoundTrip(t *testing.T) {
	m := validMeta()
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	got, err := ParseMeta(b)
	if err != nil {
		t.Fatal(err)
	}
	if got.Size() != 30 || got.Key != "m-1" || got.URLs[1] != "/b" || !got.Created.Equal(m.Created) {
		t.Fatalf("round trip: %+v", got)
	}
}

func TestParseMetaRejects(t *testing.T) {
	cases := map[string]struct {
		edit  func(m *Meta)
		field string
	}{
		"version":    {func(m *Meta) { m.Version = 2 }, "version"},
		"key":        {func(m *Meta) { m.Key = "../x" }, "key"},
		"no shards":  {func(m *Meta) { m.URLs, m.Sizes, m.ETags, m.LastModified = nil, nil, nil, nil }, "urls"},
		"ragged":     {func(m *Meta) { m.Sizes = m.Sizes[:1] }, "sizes"},
		"negative":   {func(m *Meta) { m.Sizes[1] = -1 }, "sizes[1]"},
		"overflow":   {func(m *Meta) { m.Sizes[0], m.Sizes[1] = 1<<62, 1<<62 }, "sizes[0]"},
		"hash count": {func(m *Meta) { m.SHA256 = []string{strings.Repeat("a", 64)} }, "sha256"},
		"hash case":  {func(m *Meta) { m.SHA256 = []string{strings.Repeat("A", 64), strings.Repeat("b", 64)} }, "sha256[0]"},
		"hash len":   {func(m *Meta) { m.SHA256 = []string{strings.Repeat("a", 64), "abc"} }, "sha256[1]"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			m := validMeta()
			c.edit(m)
			b, _ := json.Marshal(m)
			_, err := ParseMeta(b)
			var oe *Error
			if !errors.As(err, &oe) || oe.Kind != KindInvalid || oe.Field != c.field {
				t.Fatalf("got %v, want invalid %s", err, c.field)
			}
		})
	}
}

func TestParseMetaSyntaxOffset(t *testing.T) {
	_, err := ParseMeta([]byte(`{"version": 1, "key": x}`))
	var oe *Error
	if !errors.As(err, &oe) || oe.Offset != 23 {
		t.Fatalf("got %v, want offset 23", err)
	}
	_, err = ParseMeta(make([]byte, MaxMetaBytes+1))
	if !errors.As(err, &oe) || oe.Kind != KindInvalid {
		t.Fatalf("oversized: %v", err)
	}
}

func TestValidKey(t *testing.T) {
	for _, k := range []string{"a", "m-0123", "Llama-3.2_1B.q4"} {
		if err := ValidKey(k); err != nil {
			t.Errorf("%q: %v", k, err)
		}
	}
	for k, off := range map[string]int64{"a/b": 1, "x\\y": 1, "ok ": 2, "é": 0} {
		var oe *Error
		if err := ValidKey(k); !errors.As(err, &oe) || oe.Offset != off {
			t.Errorf("%q: got %v, want offset %d", k, err, off)
		}
	}
	for _, k := range []string{"", ".hidden", "..", strings.Repeat("a", 129)} {
		if ValidKey(k) == nil {
			t.Errorf("%q accepted", k)
		}
	}
	if k := KeyForURL("https://h/m.gguf"); ValidKey(k) != nil || k == KeyForURL("https://h/n.gguf") {
		t.Errorf("KeyForURL %q", k)
	}
}
