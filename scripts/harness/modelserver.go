package harness

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
)

// ModelServer serves model files with injectable faults, for the OPFS
// cache tests. A request for /models/FLAGS/NAME serves Dir/NAME; FLAGS is
// "-" or a comma list of:
//
//	norange  ignore Range and If-Range (always 200 with the whole file)
//	noval    send neither ETag nor Last-Modified
//	drop=N   the first request for this exact path sends N body bytes, then
//	         drops the connection
//	drops=K  with drop: the first K requests drop (default 1)
//	slow=MS  sleep MS milliseconds per 32 KiB written
//
// Every request is logged; GET /__ctl/log returns the log as JSON and
// clears it. Other /__ctl/ paths are served by Control, if set.
type ModelServer struct {
	Dir string
	// Control serves /__ctl/NAME requests other than log (e.g. "stop",
	// "quota"); nil answers 404.
	Control func(name string, w http.ResponseWriter, r *http.Request)

	mu    sync.Mutex
	log   []ModelRequest
	hits  map[string]int
	etags map[string]string
}

// ModelRequest is one logged request.
type ModelRequest struct {
	Path    string `json:"path"`
	Range   string `json:"range"`
	IfRange string `json:"ifRange"`
	Sent    int64  `json:"sent"` // body bytes written
	Dropped bool   `json:"dropped"`
}

type faults struct {
	noRange, noVal bool
	drop           int64 // -1: none
	drops          int   // requests that drop
	slow           time.Duration
}

func parseFaults(s string) (faults, error) {
	f := faults{drop: -1, drops: 1}
	if s == "-" {
		return f, nil
	}
	for _, p := range strings.Split(s, ",") {
		k, v, _ := strings.Cut(p, "=")
		switch k {
		case "norange":
			f.noRange = true
		case "noval":
			f.noVal = true
		case "drop":
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil || n < 0 {
				return f, fmt.Errorf("bad drop %q", v)
			}
			f.drop = n
		case "drops":
			n, err := strconv.Atoi(v)
			if err != nil || n < 1 {
				return f, fmt.Errorf("bad drops %q", v)
			}
			f.drops = n
		case "slow":
			n, err := strconv.Atoi(v)
			if err != nil || n < 0 {
				return f, fmt.Errorf("bad slow %q", v)
			}
			f.slow = time.Duration(n) * time.Millisecond
		default:
			return f, fmt.Errorf("unknown fault %q", k)
		}
	}
	return f, nil
}

// ServeHTTP serves /models/ and /__ctl/ requests.
func (m *ModelServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if name, ok := strings.CutPrefix(r.URL.Path, "/__ctl/"); ok {
		if name == "log" {
			m.mu.Lock()
			b, _ := json.Marshal(append([]ModelRequest{}, m.log...)) // [] rather than null when empty
			m.log = nil
			m.mu.Unlock()
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write(b)
			return
		}
		if m.Control != nil {
			m.Control(name, w, r)
			return
		}
		http.NotFound(w, r)
		return
	}
	rest, ok := strings.CutPrefix(r.URL.Path, "/models/")
	flags, name, ok2 := strings.Cut(rest, "/")
	if !ok || !ok2 || name == "" || strings.Contains(name, "/") || strings.HasPrefix(name, ".") {
		http.NotFound(w, r)
		return
	}
	f, err := parseFaults(flags)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	path := filepath.Join(m.Dir, name)
	file, err := os.Open(path)
	if err != nil {
		http.NotFound(w, r)
		return
	}
	defer file.Close()
	st, err := file.Stat()
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	rec := ModelRequest{Path: r.URL.Path, Range: r.Header.Get("Range"), IfRange: r.Header.Get("If-Range")}
	m.mu.Lock()
	if m.hits == nil {
		m.hits = map[string]int{}
	}
	m.hits[r.URL.Path]++
	nth := m.hits[r.URL.Path]
	m.mu.Unlock()
	cw := &countingWriter{ResponseWriter: w, limit: -1, slow: f.slow}
	if f.drop >= 0 && nth <= f.drops {
		cw.limit = f.drop
	}
	defer func() {
		rec.Sent, rec.Dropped = cw.n, cw.dropped
		m.mu.Lock()
		m.log = append(m.log, rec)
		m.mu.Unlock()
	}()
	mod := st.ModTime()
	if f.noVal {
		mod = time.Time{}
	} else {
		etag, err := m.etag(path, st)
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		w.Header().Set("ETag", etag)
	}
	if f.noRange {
		r.Header.Del("Range")
		r.Header.Del("If-Range")
	}
	http.ServeContent(cw, r, name, mod, file)
}

// etag is a strong ETag from the file's SHA-256, cached per path, size and
// modification time.
func (m *ModelServer) etag(path string, st os.FileInfo) (string, error) {
	id := fmt.Sprintf("%s|%d|%d", path, st.Size(), st.ModTime().UnixNano())
	m.mu.Lock()
	e, ok := m.etags[id]
	m.mu.Unlock()
	if ok {
		return e, nil
	}
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	e = `"` + hex.EncodeToString(h.Sum(nil))[:32] + `"`
	m.mu.Lock()
	if m.etags == nil {
		m.etags = map[string]string{}
	}
	m.etags[id] = e
	m.mu.Unlock()
	return e, nil
}

// countingWriter counts body bytes, sleeps per write when slow, and drops
// the connection (http.ErrAbortHandler) once limit bytes are out.
type countingWriter struct {
	http.ResponseWriter
	n, limit int64
	slow     time.Duration
	dropped  bool
}

func (c *countingWriter) Write(p []byte) (int, error) {
	if c.slow > 0 {
		time.Sleep(c.slow)
	}
	if c.limit >= 0 && c.n+int64(len(p)) > c.limit {
		k, _ := c.ResponseWriter.Write(p[:c.limit-c.n])
		c.n += int64(k)
		if fl, ok := c.ResponseWriter.(http.Flusher); ok {
			fl.Flush()
		}
		c.dropped = true
		panic(http.ErrAbortHandler) // net/http closes the connection mid-body
	}
	k, err := c.ResponseWriter.Write(p)
	c.n += int64(k)
	return k, err
}

// ServeWith is Serve with extra handlers: handlers[prefix] serves URL paths
// under prefix (e.g. "/models/" → a ModelServer), and with csp as the
// Content-Security-Policy of every response ("" = CSP).
func ServeWith(root string, mounts map[string]string, handlers map[string]http.Handler, csp string) (*Server, error) {
	if csp == "" {
		csp = CSP
	}
	base, err := Serve(root, mounts)
	if err != nil {
		return nil, err
	}
	inner := base.srv.Handler
	_ = base.Close()
	mux := http.NewServeMux()
	for p, h := range handlers {
		mux.Handle(p, h)
	}
	mux.Handle("/", inner)
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// The same isolation headers as Serve's responses.
		w.Header().Set("Cross-Origin-Opener-Policy", "same-origin")
		w.Header().Set("Cross-Origin-Embedder-Policy", "require-corp")
		w.Header().Set("Cross-Origin-Resource-Policy", "same-origin")
		w.Header().Set("Cache-Control", "no-store")
		mux.ServeHTTP(&cspWriter{ResponseWriter: w, csp: csp}, r)
	})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	s := &Server{URL: "http://" + ln.Addr().String(), srv: &http.Server{Handler: h}, ln: ln}
	go func() { _ = s.srv.Serve(ln) }()
	return s, nil
}

// cspWriter replaces the Content-Security-Policy header (set by Serve's
// handler) just before the response head goes out.
type cspWriter struct {
	http.ResponseWriter
	csp  string
	done bool
}

func (c *cspWriter) WriteHeader(code int) {
	if !c.done {
		c.done = true
		c.Header().Set("Content-Security-Policy", c.csp)
	}
	c.ResponseWriter.WriteHeader(code)
}

func (c *cspWriter) Write(p []byte) (int, error) {
	if !c.done {
		c.WriteHeader(http.StatusOK)
	}
	return c.ResponseWriter.Write(p)
}

// Flush passes through to the underlying writer.
func (c *cspWriter) Flush() {
	if fl, ok := c.ResponseWriter.(http.Flusher); ok {
		fl.Flush()
	}
}
