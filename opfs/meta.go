package opfs

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"
	"time"
)

// Limits on untrusted metadata, so a corrupt or hostile meta.json cannot
// drive a large allocation.
const (
	MaxShards    = 1024    // shards of one model
	MaxMetaBytes = 1 << 20 // size of a meta.json or resume record
	// MaxModelBytes bounds a model's total size (1 PiB: far above any
	// browser quota, low enough that sums of sizes cannot overflow).
	MaxModelBytes = 1 << 50
	maxKeyLen     = 128
)

// Meta is the commit record beside a cache entry (meta.json).
type Meta struct {
	Version      int       `json:"version"`
	Key          string    `json:"key"`
	URLs         []string  `json:"urls"`
	Sizes        []int64   `json:"sizes"`
	ETags        []string  `json:"etags"`
	LastModified []string  `json:"lastModified"`
	SHA256       []string  `json:"sha256,omitempty"` // per shard, when the caller gave them
	Created      time.Time `json:"created"`
}

// Size is the total of the shard sizes.
func (m *Meta) Size() int64 {
	var n int64
	for _, s := range m.Sizes {
		n += s
	}
	return n
}

// ShardName is the file name of shard i inside an entry.
func ShardName(i int) string { return fmt.Sprintf("%05d.gguf", i) }

// ParseMeta decodes and validates a meta.json.
func ParseMeta(b []byte) (*Meta, error) {
	if len(b) > MaxMetaBytes {
		return nil, &Error{Kind: KindInvalid, Op: "meta", Field: "meta.json", Offset: MaxMetaBytes, Msg: "too large"}
	}
	var m Meta
	if err := json.Unmarshal(b, &m); err != nil {
		off := int64(-1)
		if se, ok := err.(*json.SyntaxError); ok {
			off = se.Offset
		}
		return nil, &Error{Kind: KindInvalid, Op: "meta", Field: "meta.json", Offset: off, Err: err}
	}
	if err := m.validate(); err != nil {
		return nil, err
	}
	return &m, nil
}

func (m *Meta) validate() error {
	bad := func(field, msg string) error {
		return &Error{Kind: KindInvalid, Op: "meta", Key: m.Key, Field: field, Offset: -1, Msg: msg}
	}
	if m.Version != 1 {
		return bad("version", fmt.Sprintf("unknown version %d", m.Version))
	}
	if err := ValidKey(m.Key); err != nil {
		return err
	}
	n := len(m.URLs)
	if n == 0 || n > MaxShards {
		return bad("urls", fmt.Sprintf("%d shards (want 1..%d)", n, MaxShards))
	}
	if len(m.Sizes) != n || len(m.ETags) != n || len(m.LastModified) != n {
		return bad("sizes", "per-shard lists differ in length")
	}
	if len(m.SHA256) != 0 && len(m.SHA256) != n {
		return bad("sha256", "one digest per shard expected")
	}
	var total int64
	for i, s := range m.Sizes {
		if s < 0 || s > MaxModelBytes-total {
			return bad(fmt.Sprintf("sizes[%d]", i), fmt.Sprintf("%d is negative or takes the model over %d bytes", s, int64(MaxModelBytes)))
		}
		total += s
	}
	for i, h := range m.SHA256 {
		if err := validHash(h); err != nil {
			return bad(fmt.Sprintf("sha256[%d]", i), err.Error())
		}
	}
	return nil
}

// ValidKey checks a cache key: 1–128 characters of [A-Za-z0-9._-], not
// starting with a dot (it becomes an OPFS directory name). jsbindings'
// validId (src/cache.js) applies the same rule; testdata/cachekeys.json
// holds the cases both sides are tested on.
func ValidKey(k string) error {
	if k == "" || len(k) > maxKeyLen || k[0] == '.' {
		return &Error{Kind: KindInvalid, Op: "key", Key: k, Field: "key", Offset: -1, Msg: "want 1-128 characters, not starting with '.'"}
	}
	for i := 0; i < len(k); i++ {
		if !keyByte(k[i]) {
			return &Error{Kind: KindInvalid, Op: "key", Key: k, Field: "key", Offset: int64(i), Msg: fmt.Sprintf("character %q", k[i])}
		}
	}
	return nil
}

func keyByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-'
}

// keyNameLen bounds the file-name part of a derived key, so that with "-"
// and 32 hex digits it stays within maxKeyLen.
const keyNameLen = maxKeyLen - 1 - 32

// KeyForURL derives a cache key from a model's (first shard's) URL, as
// jsbindings' idFor does for the page (both are tested on
// testdata/cachekeys.json): the URL's file name, made a valid key, then
// "-" and the first 128 bits of SHA-256(url) in hex. The name is there for
// people; the 128 bits keep a forged URL from landing on a real URL's key
// (48 bits, the page's earlier rule, fall to hours of GPU time).
//
// The file name is the text after the last '/' before any '?' or '#',
// taken byte by byte from the URL's UTF-8: each byte outside
// [A-Za-z0-9._-] becomes '_', a leading '.' becomes '_', it is cut to 95
// bytes, and an empty one is "model". The page passes the absolute URL the
// browser serializes (new URL(url).href), which is what it hashes too.
func KeyForURL(url string) string {
	name := url
	if i := strings.IndexAny(name, "?#"); i >= 0 {
		name = name[:i]
	}
	name = name[strings.LastIndexByte(name, '/')+1:]
	b := []byte(name[:min(len(name), keyNameLen)])
	for i, c := range b {
		if !keyByte(c) {
			b[i] = '_'
		}
	}
	if len(b) == 0 {
		b = []byte("model")
	}
	if b[0] == '.' {
		b[0] = '_'
	}
	h := sha256.Sum256([]byte(url))
	return string(b) + "-" + hex.EncodeToString(h[:16])
}

func validHash(h string) error {
	if len(h) != 64 {
		return fmt.Errorf("want 64 hex digits, got %d characters", len(h))
	}
	if strings.ToLower(h) != h {
		return fmt.Errorf("want lowercase hex")
	}
	if _, err := hex.DecodeString(h); err != nil {
		return err
	}
	return nil
}
