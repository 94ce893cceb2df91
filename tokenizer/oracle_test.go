package tokenizer

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

// oracle drives scripts/oracle/oracle.mjs (llama.cpp through
// node-llama-cpp) over JSON lines.
type oracle struct {
	cmd  *exec.Cmd
	in   io.WriteCloser
	out  *bufio.Reader
	mu   sync.Mutex
	next int
}

type oracleResp struct {
	ID    int     `json:"id"`
	OK    bool    `json:"ok"`
	Error string  `json:"error"`
	Model int     `json:"model"`
	IDs   []int32 `json:"ids"`
	Text  *string `json:"text"`
}

// startOracle launches the oracle from the repository root. It fails the
// test when node or the oracle's node_modules are missing (make deps
// installs them), unless WEBGGUF_NO_ORACLE=1 explicitly opts out.
func startOracle(t testing.TB) *oracle {
	t.Helper()
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	if os.Getenv("WEBGGUF_NO_ORACLE") == "1" {
		t.Skip("WEBGGUF_NO_ORACLE=1: llama.cpp oracle comparison disabled by request")
	}
	if _, err := os.Stat(filepath.Join(root, "scripts", "oracle", "node_modules", "node-llama-cpp")); err != nil {
		t.Fatalf("oracle not installed (run make deps, or set WEBGGUF_NO_ORACLE=1): %v", err)
	}
	cmd := exec.Command("node", "scripts/oracle/oracle.mjs")
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "NODE_LLAMA_CPP_SKIP_DOWNLOAD=true")
	cmd.Stderr = io.Discard
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	outPipe, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting node: %v", err)
	}
	o := &oracle{cmd: cmd, in: in, out: bufio.NewReaderSize(outPipe, 1<<20)}
	t.Cleanup(func() {
		in.Close()
		_ = cmd.Wait()
	})
	return o
}

// batch sends all requests, then reads the responses in order; writing
// runs concurrently so neither pipe fills up.
func (o *oracle) batch(reqs []map[string]any) ([]oracleResp, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	first := o.next
	errc := make(chan error, 1)
	go func() {
		w := bufio.NewWriterSize(o.in, 1<<20)
		enc := json.NewEncoder(w)
		for i, r := range reqs {
			r["id"] = first + i
			if err := enc.Encode(r); err != nil {
				errc <- err
				return
			}
		}
		errc <- w.Flush()
	}()
	o.next += len(reqs)
	out := make([]oracleResp, len(reqs))
	for i := range reqs {
		line, err := o.out.ReadBytes('\n')
		if err != nil {
			return nil, fmt.Errorf("oracle died: %w", err)
		}
		if err := json.Unmarshal(line, &out[i]); err != nil {
			return nil, fmt.Errorf("oracle reply %q: %w", line, err)
		}
		if out[i].ID != first+i {
			return nil, fmt.Errorf("oracle reply id %d, want %d", out[i].ID, first+i)
		}
		if !out[i].OK {
			return nil, fmt.Errorf("oracle error: %s", out[i].Error)
		}
	}
	return out, <-errc
}

// load opens a model vocab-only and returns its handle.
func (o *oracle) load(path string) (int, error) {
	r, err := o.batch([]map[string]any{{"op": "load", "path": path, "vocabOnly": true}})
	if err != nil {
		return 0, err
	}
	return r[0].Model, nil
}
