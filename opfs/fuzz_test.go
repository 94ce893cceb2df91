package opfs

import (
	"errors"
	"testing"
)

// FuzzParse feeds untrusted metadata, resume records and Content-Range
// values to the parsers: they must return a typed error or a value that
// passes their own checks, never panic.
func FuzzParse(f *testing.F) {
	f.Add([]byte(`{"version":1,"key":"a","urls":["/a"],"sizes":[1],"etags":[""],"lastModified":[""],"created":"2026-01-01T00:00:00Z"}`), "bytes 0-9/10")
	f.Add([]byte(`{"url":"/m","total":-1}`), "bytes 5-5/*")
	f.Add([]byte(`{"version":1,"key":"..","urls":[]}`), "bytes 9-0/1")
	f.Fuzz(func(t *testing.T, b []byte, cr string) {
		if m, err := ParseMeta(b); err == nil {
			if m.validate() != nil || m.Size() < 0 || m.Size() > MaxModelBytes {
				t.Fatalf("accepted invalid meta %+v", m)
			}
		} else {
			var oe *Error
			if !errors.As(err, &oe) {
				t.Fatalf("untyped error %v", err)
			}
		}
		if p, err := ParsePartial(b); err == nil && p.Total < -1 {
			t.Fatalf("accepted total %d", p.Total)
		}
		if s, e, tot, err := ParseContentRange(cr); err == nil {
			if s < 0 || e < s || (tot != -1 && tot <= e) {
				t.Fatalf("%q gave %d-%d/%d", cr, s, e, tot)
			}
			d, err := Decide(Response{Status: 206, ContentRange: cr}, &Partial{Total: -1, ETag: `"e"`}, s)
			if err == nil && (!d.Resume || d.Total != tot) {
				t.Fatalf("%q: decision %+v", cr, d)
			}
		}
	})
}
