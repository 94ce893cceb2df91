package harness

import (
	"mime"
	"net"
	"net/http"
	"strings"
)

// CSP is the Content-Security-Policy of every harness response.
const CSP = "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; worker-src 'self'; connect-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; object-src 'none'; base-uri 'none'"

// Server serves files on a loopback port with the headers the engine needs.
type Server struct {
	// URL is the base URL, http://127.0.0.1:PORT (no trailing slash).
	URL string
	srv *http.Server
	ln  net.Listener
}

// Serve serves root at / and each mounts entry (URL prefix ending in "/" →
// folder) on 127.0.0.1 on a free port. Every response carries COOP/COEP
// (cross-origin isolation: SharedArrayBuffer, 5 µs performance.now()), the
// strict CSP and no-store.
func Serve(root string, mounts map[string]string) (*Server, error) {
	_ = mime.AddExtensionType(".wasm", "application/wasm")
	_ = mime.AddExtensionType(".js", "text/javascript")
	_ = mime.AddExtensionType(".mjs", "text/javascript")
	mux := http.NewServeMux()
	for prefix, dir := range mounts {
		if !strings.HasSuffix(prefix, "/") {
			prefix += "/"
		}
		mux.Handle(prefix, http.StripPrefix(prefix, http.FileServer(http.Dir(dir))))
	}
	mux.Handle("/", http.FileServer(http.Dir(root)))
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cross-Origin-Opener-Policy", "same-origin")
		w.Header().Set("Cross-Origin-Embedder-Policy", "require-corp")
		w.Header().Set("Cross-Origin-Resource-Policy", "same-origin")
		w.Header().Set("Cache-Control", "no-store")
		// A strict CSP, so every page proves the engine needs no blob: or
		// data: workers, no eval and no inline script (wasm needs
		// 'wasm-unsafe-eval' only).
		w.Header().Set("Content-Security-Policy", CSP)
		mux.ServeHTTP(w, r)
	})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	s := &Server{URL: "http://" + ln.Addr().String(), srv: &http.Server{Handler: h}, ln: ln}
	go func() { _ = s.srv.Serve(ln) }()
	return s, nil
}

// Close stops the server.
func (s *Server) Close() error { return s.srv.Close() }
