// Command gen writes the JavaScript codec and TypeScript types of the GLUE
// schema (src/glue.gen.js, src/glue.gen.d.ts, and the test messages'
// test/glue-test.gen.js, test/glue-test.gen.d.ts) into the jsbindings
// folder; `go generate ./glue/...` runs it from glue/ with -out ../jsbindings.
package main

import (
	"flag"
	"log"
	"os"
	"path/filepath"

	"github.com/webgguf/webgguf/glue/internal/jsgen"
)

func main() {
	out := flag.String("out", "../jsbindings", "the jsbindings folder: files go to its src/ and test/")
	schema := flag.String("schema", "schema.go", "the schema source, read for doc comments")
	flag.Parse()
	src, err := os.ReadFile(*schema)
	if err != nil {
		log.Fatal(err)
	}
	files, err := jsgen.Generate(src)
	if err != nil {
		log.Fatal(err)
	}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(*out, name), data, 0o644); err != nil {
			log.Fatal(err)
		}
	}
}
