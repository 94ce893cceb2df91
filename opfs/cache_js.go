//go:build js

package opfs

import (
	"context"
	"encoding/json"
	"errors"
	"sort"

	"github.com/hack-pad/safejs"
)

// Cache is the model cache in OPFS (see the package doc for its layout).
// Methods may be called concurrently for different keys.
type Cache struct {
	models, partial safejs.Value
}

// Open opens (creating if needed) the cache folders in the origin's OPFS.
func Open(ctx context.Context) (*Cache, error) {
	root, err := storageRoot(ctx)
	if err != nil {
		return nil, wrap(err, KindUnsupported, "open", "", "")
	}
	top, err := subdir(ctx, root, "webgguf", true)
	if err != nil {
		return nil, wrap(err, KindUnsupported, "open", "", "")
	}
	c := &Cache{}
	if c.models, err = subdir(ctx, top, "models", true); err != nil {
		return nil, wrap(err, KindUnsupported, "open", "", "")
	}
	if c.partial, err = subdir(ctx, top, "partial", true); err != nil {
		return nil, wrap(err, KindUnsupported, "open", "", "")
	}
	return c, nil
}

// Entry is a committed cache entry.
type Entry struct {
	Meta *Meta
	dir  safejs.Value
}

// Get returns the committed entry key, or an Error of kind not_found.
func (c *Cache) Get(ctx context.Context, key string) (*Entry, error) {
	if err := ValidKey(key); err != nil {
		return nil, err
	}
	dir, err := subdir(ctx, c.models, key, false)
	if err != nil {
		return nil, wrap(err, KindNotFound, "get", key, "")
	}
	b, err := readSmall(ctx, dir, "meta.json")
	if err != nil {
		return nil, wrap(err, KindNotFound, "get", key, "no meta.json (not committed)")
	}
	m, err := ParseMeta(b)
	if err != nil {
		return nil, err
	}
	if m.Key != key {
		return nil, &Error{Kind: KindInvalid, Op: "get", Key: key, Field: "key", Offset: -1, Msg: "meta.json names " + m.Key}
	}
	return &Entry{Meta: m, dir: dir}, nil
}

// List returns the committed entries, sorted by key. Folders without a
// valid meta.json (a commit cut short) are skipped.
func (c *Cache) List(ctx context.Context) ([]*Entry, error) {
	ks, err := names(ctx, c.models)
	if err != nil {
		return nil, wrap(err, KindUnsupported, "list", "", "")
	}
	sort.Strings(ks)
	var out []*Entry
	for _, k := range ks {
		if ValidKey(k) != nil {
			continue
		}
		e, err := c.Get(ctx, k)
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			continue
		}
		out = append(out, e)
	}
	return out, nil
}

// Delete removes the entry key and any partial download of it. The commit
// record goes first, so a delete cut short leaves no entry behind.
func (c *Cache) Delete(ctx context.Context, key string) (bool, error) {
	if err := ValidKey(key); err != nil {
		return false, err
	}
	existed := false
	if dir, err := subdir(ctx, c.models, key, false); err == nil {
		if existed, err = remove(ctx, dir, "meta.json"); err != nil {
			return false, wrap(err, KindBusy, "delete", key, "")
		}
		if _, err := remove(ctx, c.models, key); err != nil {
			return existed, wrap(err, KindBusy, "delete", key, "")
		}
	}
	if _, err := remove(ctx, c.partial, key); err != nil {
		return existed, wrap(err, KindBusy, "delete", key, "partial")
	}
	return existed, nil
}

// Clear removes every entry and partial download; it returns how many
// committed entries went.
func (c *Cache) Clear(ctx context.Context) (int, error) {
	es, err := c.List(ctx)
	if err != nil {
		return 0, err
	}
	var errs []error
	for _, dir := range []safejs.Value{c.models, c.partial} {
		ks, err := names(ctx, dir)
		if err != nil {
			return 0, wrap(err, KindUnsupported, "clear", "", "")
		}
		for _, k := range ks {
			if _, err := remove(ctx, dir, k); err != nil {
				errs = append(errs, wrap(err, KindBusy, "clear", k, ""))
			}
		}
	}
	return len(es), errors.Join(errs...)
}

// Estimate returns navigator.storage.estimate()'s usage and quota and
// whether storage is persistent. With persist it first asks
// navigator.storage.persist() (the browser may say no); browsers offer
// persist() to pages only, so in a worker that is an error of kind
// unsupported and the page must ask (then persisted reports its answer).
func Estimate(ctx context.Context, persist bool) (usage, quota int64, persisted bool, err error) {
	st := get(global("navigator"), "storage")
	if st.IsUndefined() {
		return 0, 0, false, newErr(KindUnsupported, "estimate", "", "navigator.storage is missing", nil)
	}
	if persist {
		if get(st, "persist").IsUndefined() {
			return 0, 0, false, newErr(KindUnsupported, "persist", "", "navigator.storage.persist() is for pages only; call it from the page", nil)
		}
		v, err := callAwait(ctx, st, "persist")
		if err != nil {
			return 0, 0, false, wrap(err, KindUnsupported, "persist", "", "")
		}
		persisted, _ = v.Bool()
	} else if v, err := callAwait(ctx, st, "persisted"); err == nil {
		persisted, _ = v.Bool()
	}
	v, err := callAwait(ctx, st, "estimate")
	if err != nil {
		return 0, 0, false, wrap(err, KindUnsupported, "estimate", "", "")
	}
	return int64(num(v, "usage")), int64(num(v, "quota")), persisted, nil
}

// commit moves the downloaded shards of key from partial into a fresh
// entry and writes its meta.json last: the commit point.
func (c *Cache) commit(ctx context.Context, m *Meta, parts []safejs.Value) error {
	key := m.Key
	if old, err := subdir(ctx, c.models, key, false); err == nil { // an older entry of the same key
		if _, err := remove(ctx, old, "meta.json"); err != nil {
			return wrap(err, KindBusy, "commit", key, "old entry")
		}
		if _, err := remove(ctx, c.models, key); err != nil {
			return wrap(err, KindBusy, "commit", key, "old entry")
		}
	}
	dir, err := subdir(ctx, c.models, key, true)
	if err != nil {
		return wrap(err, KindBusy, "commit", key, "")
	}
	for i, fh := range parts {
		if err := move(ctx, fh, dir, ShardName(i)); err != nil {
			_, _ = remove(ctx, c.models, key)
			return wrap(err, KindBusy, "commit", key, "")
		}
	}
	b, err := json.Marshal(m)
	if err != nil {
		return err
	}
	if err := writeSmall(ctx, dir, "meta.json", b); err != nil {
		_, _ = remove(ctx, c.models, key)
		return wrap(err, KindBusy, "commit", key, "meta.json")
	}
	_, _ = remove(ctx, c.partial, key)
	return nil
}

// openShards opens the entry's shard files for reading. The caller closes them.
func (e *Entry) openShards(ctx context.Context) ([]*syncFile, error) {
	var out []*syncFile
	fail := func(err error) ([]*syncFile, error) {
		for _, f := range out {
			f.close()
		}
		return nil, err
	}
	for i := range e.Meta.Sizes {
		fh, err := fileIn(ctx, e.dir, ShardName(i), false)
		if err != nil {
			return fail(wrap(err, KindIntegrity, "open", e.Meta.Key, ShardName(i)+" missing"))
		}
		f, err := openSync(ctx, fh, true)
		if err != nil {
			return fail(wrap(err, KindBusy, "open", e.Meta.Key, ShardName(i)))
		}
		out = append(out, f)
		n, err := f.size()
		if err != nil {
			return fail(wrap(err, KindBusy, "open", e.Meta.Key, ShardName(i)))
		}
		if n != e.Meta.Sizes[i] {
			return fail(&Error{Kind: KindIntegrity, Op: "open", Key: e.Meta.Key, Field: ShardName(i), Offset: n, Msg: "size differs from meta.json"})
		}
	}
	return out, nil
}

// File returns shard i as a JS File (a Blob), for slice reads.
func (e *Entry) File(ctx context.Context, i int) (safejs.Value, error) {
	fh, err := fileIn(ctx, e.dir, ShardName(i), false)
	if err != nil {
		return safejs.Value{}, wrap(err, KindIntegrity, "open", e.Meta.Key, ShardName(i))
	}
	return callAwait(ctx, fh, "getFile")
}
