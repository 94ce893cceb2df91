// Command serve serves a folder over HTTP on the loopback interface, with the
// cross-origin isolation headers the engine's pages want (COOP/COEP give
// SharedArrayBuffer and fine-grained performance.now()).
package main

import (
	"flag"
	"log"
	"mime"
	"net/http"
)

func main() {
	dir := flag.String("dir", "examples/demo", "folder to serve")
	addr := flag.String("addr", "127.0.0.1:8080", "listen address (loopback)")
	flag.Parse()
	_ = mime.AddExtensionType(".wasm", "application/wasm")
	_ = mime.AddExtensionType(".mjs", "text/javascript")
	fs := http.FileServer(http.Dir(*dir))
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cross-Origin-Opener-Policy", "same-origin")
		w.Header().Set("Cross-Origin-Embedder-Policy", "require-corp")
		w.Header().Set("Cache-Control", "no-cache")
		fs.ServeHTTP(w, r)
	})
	log.Printf("serving %s on http://%s/", *dir, *addr)
	log.Fatal(http.ListenAndServe(*addr, h))
}
