package opfs

import (
	"encoding/json"
	"os"
	"testing"
)

// cacheKeyCases is testdata/cachekeys.json: the id rule's cases, which
// jsbindings/test/cachekey.test.js checks idFor and validId against too, so
// that a key the page derives is one the worker accepts and derives.
type cacheKeyCases struct {
	Keys []struct{ URL, Key string }
	IDs  []struct {
		ID    string
		Valid bool
	}
}

func TestKeyRuleMatchesTheSharedTable(t *testing.T) {
	b, err := os.ReadFile("../testdata/cachekeys.json")
	if err != nil {
		t.Fatal(err)
	}
	var c cacheKeyCases
	if err := json.Unmarshal(b, &c); err != nil {
		t.Fatal(err)
	}
	if len(c.Keys) == 0 || len(c.IDs) == 0 {
		t.Fatal("empty table")
	}
	for _, k := range c.Keys {
		if got := KeyForURL(k.URL); got != k.Key {
			t.Errorf("KeyForURL(%q) = %q, want %q", k.URL, got, k.Key)
		}
		if err := ValidKey(k.Key); err != nil {
			t.Errorf("KeyForURL(%q) = %q is not a valid key: %v", k.URL, k.Key, err)
		}
	}
	for _, v := range c.IDs {
		if got := ValidKey(v.ID) == nil; got != v.Valid {
			t.Errorf("ValidKey(%q) valid %v, want %v", v.ID, got, v.Valid)
		}
	}
}

// TestKeyForURLKeeps128Bits checks that the hash part of a derived key is
// 32 hex digits whatever the URL's length, so that two URLs share a key
// only by a 128-bit collision.
func TestKeyForURLKeeps128Bits(t *testing.T) {
	for _, u := range []string{"", "https://h/", "https://h/" + string(make([]byte, 500))} {
		k := KeyForURL(u)
		if len(k) < 33 || len(k) > maxKeyLen || k[len(k)-33] != '-' || ValidKey(k) != nil {
			t.Errorf("KeyForURL(%q) = %q", u, k)
		}
	}
}
