// Command gen writes the JavaScript codec and TypeScript types of the GLUE
// schema (glue.gen.js, glue.gen.d.ts) into a folder; `go generate ./glue/...`
// runs it from glue/ with -out ../jsbindings/src.
package main

import (
	"flag"
	"log"
	"os"
	"path/filepath"

	"github.com/webgguf/webgguf/glue/internal/jsgen"
)

func main() {
	out := flag.String("out", "../jsbindings/src", "folder to write the generated files into")
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
