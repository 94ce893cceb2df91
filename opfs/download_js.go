//go:build js

package opfs

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hack-pad/safejs"
)

// DownloadOptions configure Cache.Download.
type DownloadOptions struct {
	Key      string   // "" = KeyForURL(urls[0])
	SHA256   []string // optional, one lowercase hex digest per shard
	Parallel int      // shards fetched at once; 0 = 3
	Retries  int      // resumes after a dropped connection, per shard; 0 = 4
	// Progress, if set, is called (from download goroutines, serialized)
	// with each shard's progress, at most every 50 ms per shard and at its end.
	Progress func(Progress)
	// Check, if set, reads the complete shards before they are committed;
	// an error fails the download and leaves no entry, so that a file the
	// engine cannot load (an HTML error page, a truncated file, an
	// unsupported architecture) is never cached. See SetModelCheck.
	Check func(ctx context.Context, src Source) error
}

var modelCheck func(ctx context.Context, src Source) error

// SetModelCheck sets the check of every download the Opfs* handlers serve
// (DownloadOptions.Check): the engine's, which parses the GGUF header and
// tensor table and knows the architectures it runs. Call it before serving.
func SetModelCheck(check func(ctx context.Context, src Source) error) { modelCheck = check }

// Progress reports a download or a load.
type Progress struct {
	Stage             string // "download", "verify" or "load"
	Key               string
	Shard, Shards     int
	Done, Total       int64 // of this shard (Total -1: unknown)
	AllDone, AllTotal int64 // of the whole call (AllTotal -1: a shard's total is unknown)
	BytesPerSec       float64
}

// DownloadResult reports a committed download.
type DownloadResult struct {
	Key       string
	Size      int64
	Resumed   int   // Range requests that continued a partial shard
	Restarted int   // partial shards thrown away
	Fetched   int64 // bytes received by this call
}

// Download fetches urls (the shards of one model, in order) into the cache
// and commits them as one entry. Partial shards of an earlier attempt are
// resumed with Range requests when their validator still holds. On
// cancellation or a non-network failure the partial files are removed; on
// a network failure they are kept for a later resume. Either way no entry
// appears unless every shard is complete and verified.
func (c *Cache) Download(ctx context.Context, urls []string, opt DownloadOptions) (*DownloadResult, error) {
	if len(urls) == 0 || len(urls) > MaxShards {
		return nil, &Error{Kind: KindInvalid, Op: "download", Field: "urls", Offset: -1, Msg: fmt.Sprintf("%d urls (want 1..%d)", len(urls), MaxShards)}
	}
	key := opt.Key
	if key == "" {
		key = KeyForURL(urls[0])
	}
	if err := ValidKey(key); err != nil {
		return nil, err
	}
	if len(opt.SHA256) != 0 && len(opt.SHA256) != len(urls) {
		return nil, &Error{Kind: KindInvalid, Op: "download", Key: key, Field: "sha256", Offset: -1, Msg: "one digest per url"}
	}
	for i, h := range opt.SHA256 {
		if err := validHash(h); err != nil {
			return nil, &Error{Kind: KindInvalid, Op: "download", Key: key, Field: fmt.Sprintf("sha256[%d]", i), Offset: -1, Err: err}
		}
	}
	par := opt.Parallel
	if par <= 0 {
		par = 3
	}
	pdir, err := subdir(ctx, c.partial, key, true)
	if err != nil {
		return nil, wrap(err, KindUnsupported, "download", key, "")
	}
	d := &download{c: c, key: key, urls: urls, opt: opt, dir: pdir, start: time.Now(), totals: make([]int64, len(urls)), dones: make([]int64, len(urls))}
	shards := make([]*shardResult, len(urls))
	errs := make([]error, len(urls))
	sem := make(chan struct{}, par)
	sctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var wg sync.WaitGroup
	for i := range urls {
		wg.Add(1)
		go func() {
			defer wg.Done()
			select {
			case sem <- struct{}{}:
			case <-sctx.Done():
				errs[i] = sctx.Err()
				return
			}
			defer func() { <-sem }()
			shards[i], errs[i] = d.shard(sctx, i)
			if errs[i] != nil {
				cancel() // one failed shard stops the others
			}
		}()
	}
	wg.Wait()
	if err := firstErr(ctx, errs); err != nil {
		// Aborted or failed for good: no partial entry. A network failure
		// keeps it for a resume; busy means another download of this key
		// owns the files.
		if k := kindOf2(err); k != KindNetwork && k != KindBusy {
			_, _ = remove(context.Background(), c.partial, key)
		}
		return nil, err
	}
	if opt.Check != nil {
		if err := checkShards(ctx, opt.Check, shards); err != nil {
			_, _ = remove(context.Background(), c.partial, key)
			return nil, err
		}
	}
	m := &Meta{Version: 1, Key: key, URLs: urls, SHA256: opt.SHA256, Created: time.Now().UTC()}
	parts := make([]safejs.Value, len(urls))
	res := &DownloadResult{Key: key, Fetched: d.fetched.Load()}
	for i, s := range shards {
		m.Sizes = append(m.Sizes, s.size)
		m.ETags = append(m.ETags, s.etag)
		m.LastModified = append(m.LastModified, s.lastModified)
		parts[i] = s.fh
		res.Size += s.size
		res.Resumed += s.resumed
		res.Restarted += s.restarted
	}
	if err := c.commit(ctx, m, parts); err != nil {
		_, _ = remove(context.Background(), c.partial, key)
		return nil, err
	}
	return res, nil
}

// checkShards runs check on the downloaded shards, read through sync
// access handles (the download's own are closed by now).
func checkShards(ctx context.Context, check func(context.Context, Source) error, shards []*shardResult) error {
	src := &syncSource{}
	defer src.Close()
	for i, s := range shards {
		f, err := openSync(ctx, s.fh, true)
		if err != nil {
			return wrap(err, KindBusy, "check", "", ShardName(i))
		}
		src.files = append(src.files, f)
		src.sizes = append(src.sizes, s.size)
	}
	return check(ctx, src)
}

// firstErr picks the error to report: the caller's cancellation, else the
// first error that is not a cancellation caused by a sibling's failure.
func firstErr(ctx context.Context, errs []error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	var canceled error
	for _, e := range errs {
		if e == nil {
			continue
		}
		if errors.Is(e, context.Canceled) {
			canceled = e
			continue
		}
		return e
	}
	return canceled
}

type download struct {
	c       *Cache
	key     string
	urls    []string
	opt     DownloadOptions
	dir     safejs.Value
	start   time.Time
	fetched atomic.Int64
	mu      sync.Mutex // serializes Progress calls and the totals
	totals  []int64
	dones   []int64
}

type shardResult struct {
	fh                 safejs.Value
	size               int64
	etag, lastModified string
	resumed, restarted int
}

func (d *download) progress(stage string, i int, done, total int64) {
	if d.opt.Progress == nil {
		return
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	d.dones[i], d.totals[i] = done, total
	p := Progress{Stage: stage, Key: d.key, Shard: i, Shards: len(d.urls), Done: done, Total: total}
	for j := range d.dones {
		p.AllDone += d.dones[j]
		p.AllTotal += max(d.totals[j], 0)
	}
	for _, t := range d.totals {
		if t < 0 { // a shard without Content-Length: the whole is unknown
			p.AllTotal = -1
		}
	}
	if s := time.Since(d.start).Seconds(); s > 0 {
		p.BytesPerSec = float64(d.fetched.Load()) / s
	}
	d.opt.Progress(p)
}

// shard downloads shard i into partial/<key>/<i>.part, resuming and
// retrying after dropped connections, then checks its size and hash.
func (d *download) shard(ctx context.Context, i int) (*shardResult, error) {
	name := fmt.Sprintf("%05d", i)
	url := d.urls[i]
	fh, err := fileIn(ctx, d.dir, name+".part", true)
	if err != nil {
		return nil, wrap(err, KindBusy, "download", d.key, name+".part")
	}
	f, err := openSync(ctx, fh, false)
	if err != nil {
		return nil, wrap(err, KindBusy, "download", d.key, name+".part")
	}
	defer f.close()
	res := &shardResult{fh: fh}
	have, err := f.size()
	if err != nil {
		return nil, wrap(err, KindBusy, "download", d.key, "")
	}
	var rec *Partial
	if have > 0 {
		if b, err := readSmall(ctx, d.dir, name+".json"); err == nil {
			rec, _ = ParsePartial(b)
		}
		if rec == nil || rec.URL != url || rec.Validator() == "" || (rec.Total >= 0 && have > rec.Total) {
			// Nothing proves the bytes on disk belong to this file: start over.
			if err := f.truncate(0); err != nil {
				return nil, wrap(err, KindBusy, "download", d.key, "")
			}
			have, rec = 0, nil
			res.restarted++
		}
	}
	retries := d.opt.Retries
	if retries <= 0 {
		retries = 4
	}
	total := int64(-1)
	for attempt := 0; ; attempt++ {
		var done bool
		done, total, err = d.fetchOnce(ctx, f, i, url, name, &have, &rec, res)
		if err == nil && done {
			break
		}
		if err != nil && (ctx.Err() != nil || kindOf2(err) != KindNetwork) {
			return nil, err
		}
		if oe := (*Error)(nil); attempt == 0 && have == 0 && errors.As(err, &oe) && oe.Field == "fetch" {
			return nil, err // never reached the server: retrying would fail alike (noResponse)
		}
		if attempt >= retries {
			if err == nil {
				err = fmt.Errorf("stream ended at %d of %d bytes", have, total)
			}
			return nil, wrap(err, KindNetwork, "download", d.key, fmt.Sprintf("shard %d after %d attempts", i, attempt+1))
		}
		select { // a short backoff before resuming
		case <-time.After(time.Duration(100*(attempt+1)) * time.Millisecond):
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	if err := f.flush(); err != nil {
		return nil, wrap(err, KindQuota, "download", d.key, "flush")
	}
	res.size = have
	if rec != nil {
		res.etag, res.lastModified = rec.ETag, rec.LastModified
	}
	if len(d.opt.SHA256) != 0 {
		if err := d.verify(ctx, f, i, have, d.opt.SHA256[i]); err != nil {
			return nil, err
		}
	}
	return res, nil
}

// kindOf2 is the kind of an *Error in err's chain, or "".
func kindOf2(err error) string {
	var oe *Error
	if errors.As(err, &oe) {
		return oe.Kind
	}
	return ""
}

// fetchOnce makes one request for the rest of shard i and streams the body
// to f at *have. It returns done when the shard is complete; an error of
// kind network when the connection failed (worth a resume).
func (d *download) fetchOnce(ctx context.Context, f *syncFile, i int, url, name string, have *int64, rec **Partial, res *shardResult) (done bool, total int64, err error) {
	headers := object()
	if *have > 0 && (*rec == nil || (*rec).Validator() == "") {
		// Nothing proves the bytes kept belong to the file the server has
		// now (no ETag, no Last-Modified): throw them away.
		if err := f.truncate(0); err != nil {
			return false, -1, wrap(err, KindBusy, "download", d.key, "")
		}
		*have = 0
		res.restarted++
	}
	if *have > 0 {
		_ = headers.Set("Range", "bytes="+strconv.FormatInt(*have, 10)+"-")
		_ = headers.Set("If-Range", (*rec).Validator())
	}
	ac, err := global("AbortController").New()
	if err != nil {
		return false, -1, err
	}
	signal := get(ac, "signal")
	fctx, stop := context.WithCancel(ctx)
	defer stop()
	go func() {
		<-fctx.Done()
		_, _ = ac.Call("abort") // stops the fetch and its body stream
	}()
	resp, err := callAwait(ctx, safejs.Global(), "fetch", url, object("headers", headers, "signal", signal, "cache", "no-store"))
	if err != nil {
		if ctx.Err() != nil {
			return false, -1, ctx.Err()
		}
		return false, -1, noResponse("download", d.key, url, err)
	}
	r := Response{Status: int(num(resp, "status")), ContentLength: -1}
	hs := get(resp, "headers")
	hget := func(h string) string {
		v, err := hs.Call("get", h)
		if err != nil || v.Type() != safejs.TypeString {
			return ""
		}
		s, _ := v.String()
		return s
	}
	if cl := hget("Content-Length"); cl != "" {
		if n, err := strconv.ParseInt(cl, 10, 64); err == nil && n >= 0 {
			r.ContentLength = n
		}
	}
	r.ContentRange, r.ETag, r.LastModified = hget("Content-Range"), hget("ETag"), hget("Last-Modified")
	plan, err := Decide(r, *rec, *have)
	if err != nil {
		var oe *Error
		if errors.As(err, &oe) {
			oe.Key = d.key
			oe.Msg += " (" + url + ")"
		}
		return false, -1, err
	}
	if plan.Resume {
		res.resumed++
	} else {
		if *have > 0 {
			res.restarted++
		}
		*have = 0
		if err := f.truncate(0); err != nil {
			return false, -1, wrap(err, KindBusy, "download", d.key, "")
		}
		*rec = &Partial{URL: url, ETag: r.ETag, LastModified: r.LastModified, Total: plan.Total}
		b, _ := json.Marshal(*rec)
		if err := writeSmall(ctx, d.dir, name+".json", b); err != nil {
			return false, -1, wrap(err, KindQuota, "download", d.key, "resume record")
		}
	}
	total = plan.Total
	body := get(resp, "body")
	if body.IsNull() || body.IsUndefined() {
		return false, total, newErr(KindHTTP, "download", d.key, "response has no body", nil)
	}
	reader, err := call(body, "getReader")
	if err != nil {
		return false, total, err
	}
	last := time.Time{}
	var sinceGC int64
	for {
		chunk, err := callAwait(ctx, reader, "read")
		if err != nil {
			if ctx.Err() != nil {
				return false, total, ctx.Err()
			}
			_ = f.flush()
			return false, total, wrap(err, KindNetwork, "download", d.key, fmt.Sprintf("read at %d", *have))
		}
		if isDone, _ := get(chunk, "done").Bool(); isDone {
			break
		}
		v := get(chunk, "value")
		n := int64(num(v, "byteLength"))
		if total >= 0 && *have+n > total {
			_, _ = reader.Call("cancel")
			return false, total, &Error{Kind: KindHTTP, Op: "download", Key: d.key, Field: "body", Offset: *have, Msg: fmt.Sprintf("longer than the announced %d bytes", total)}
		}
		if err := f.writeJS(v, *have); err != nil {
			_, _ = reader.Call("cancel")
			return false, total, wrap(err, KindQuota, "download", d.key, fmt.Sprintf("write at %d", *have))
		}
		*have += n
		d.fetched.Add(n)
		if sinceGC += n; sinceGC >= gcEvery {
			sinceGC = 0
			releaseJS()
		}
		if now := time.Now(); now.Sub(last) > 50*time.Millisecond {
			last = now
			d.progress("download", i, *have, total)
		}
	}
	d.progress("download", i, *have, total)
	if total >= 0 && *have != total {
		return false, total, newErr(KindNetwork, "download", d.key, fmt.Sprintf("body ended at %d of %d bytes", *have, total), nil)
	}
	if total < 0 {
		total = *have
	}
	return true, total, nil
}

// verify hashes the shard through a reused 1 MiB Go buffer (+0 memory
// growth) and compares with want.
func (d *download) verify(ctx context.Context, f *syncFile, i int, size int64, want string) error {
	h := sha256.New()
	buf := make([]byte, 1<<20)
	var last time.Time
	for off := int64(0); off < size; {
		if err := ctx.Err(); err != nil {
			return err
		}
		n, err := f.ReadAt(buf[:min(int64(len(buf)), size-off)], off)
		if n <= 0 {
			return wrap(err, KindIntegrity, "verify", d.key, fmt.Sprintf("read at %d", off))
		}
		h.Write(buf[:n])
		off += int64(n)
		if now := time.Now(); now.Sub(last) > 50*time.Millisecond {
			last = now
			d.progress("verify", i, off, size)
		}
	}
	if got := hex.EncodeToString(h.Sum(nil)); got != want {
		return &Error{Kind: KindIntegrity, Op: "verify", Key: d.key, Field: fmt.Sprintf("sha256[%d]", i), Offset: -1, Msg: "got " + got + ", want " + want}
	}
	return nil
}

// noResponseHint says why a fetch() can fail without any response: the
// browser reports a refused connection, a DNS failure and a CORS refusal
// alike ("TypeError: Failed to fetch"), and for a model on another origin
// the CORS headers are the usual culprit.
const noResponseHint = "the server is unreachable, or it does not let this page's origin read the file; " +
	"a model on another origin must be served with CORS headers: Access-Control-Allow-Origin, " +
	"and Access-Control-Expose-Headers for Content-Length, Content-Range and ETag"

// noResponse is the error of a fetch() of url that got no response at all
// (Field "fetch"). A download does not retry it: a server never reached is
// not a dropped connection, and a CORS refusal fails the same way every time.
func noResponse(op, key, url string, cause error) *Error {
	return &Error{Kind: KindNetwork, Op: op, Key: key, Field: "fetch", Offset: -1, Msg: url + " gave no response: " + noResponseHint, Err: cause}
}
