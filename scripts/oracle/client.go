// Package oracle is the Go client of oracle.mjs: llama.cpp (through
// node-llama-cpp's prebuilt CPU binary) answering tokenize, detokenize,
// logits and greedy-generation requests, for tests that compare webgguf
// with the reference implementation. See README.md.
package oracle

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
)

// ErrNotInstalled means node or scripts/oracle/node_modules is missing; run
// make deps.
var ErrNotInstalled = errors.New("oracle: node-llama-cpp not installed (run make deps)")

// Client is one running oracle.mjs process. Its methods are safe for
// concurrent use; requests are answered in order.
type Client struct {
	cmd  *exec.Cmd
	in   io.WriteCloser
	out  *bufio.Reader
	mu   sync.Mutex
	next int
}

// Request is one JSON request; "id" is filled by the client. See the top
// of oracle.mjs for the operations and their fields.
type Request map[string]any

// Response is one reply; fields not produced by the operation stay zero.
type Response struct {
	ID     int         `json:"id"`
	OK     bool        `json:"ok"`
	Error  string      `json:"error"`
	Model  int         `json:"model"`
	NVocab int         `json:"nVocab"`
	IDs    []int32     `json:"ids"`
	Text   *string     `json:"text"`
	Logits [][]float64 `json:"logits"`
	Attrs  []uint32    `json:"attrs"`
	EOG    []int32     `json:"eog"`
	BOS    *int32      `json:"bos"`
	EOS    *int32      `json:"eos"`
	EOT    *int32      `json:"eot"`
	// Embedding answers "embed": the pooled sequence vector.
	Embedding []float64 `json:"embedding"`
}

// Start launches node on oracle.mjs. root is the repository root (paths in
// requests are relative to it).
func Start(root string) (*Client, error) {
	if _, err := os.Stat(filepath.Join(root, "scripts", "oracle", "node_modules", "node-llama-cpp")); err != nil {
		return nil, ErrNotInstalled
	}
	if _, err := exec.LookPath("node"); err != nil {
		return nil, ErrNotInstalled
	}
	cmd := exec.Command("node", "scripts/oracle/oracle.mjs")
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "NODE_LLAMA_CPP_SKIP_DOWNLOAD=true")
	cmd.Stderr = io.Discard
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("oracle: starting node: %w", err)
	}
	return &Client{cmd: cmd, in: in, out: bufio.NewReaderSize(out, 1<<20)}, nil
}

// Close ends the process (it exits when stdin closes) and waits for it.
func (c *Client) Close() error {
	c.in.Close()
	return c.cmd.Wait()
}

// Batch sends all requests, then reads their replies in order; writing runs
// concurrently so neither pipe can fill up. A reply with ok=false is an error.
func (c *Client) Batch(reqs []Request) ([]Response, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	first := c.next
	c.next += len(reqs)
	errc := make(chan error, 1)
	go func() {
		w := bufio.NewWriterSize(c.in, 1<<20)
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
	out := make([]Response, len(reqs))
	for i := range reqs {
		line, err := c.out.ReadBytes('\n')
		if err != nil {
			return nil, fmt.Errorf("oracle: process died: %w", err)
		}
		if err := json.Unmarshal(line, &out[i]); err != nil {
			return nil, fmt.Errorf("oracle: reply %q: %w", line, err)
		}
		if out[i].ID != first+i {
			return nil, fmt.Errorf("oracle: reply id %d, want %d", out[i].ID, first+i)
		}
		if !out[i].OK {
			return nil, fmt.Errorf("oracle: %s", out[i].Error)
		}
	}
	return out, <-errc
}

func (c *Client) one(r Request) (Response, error) {
	out, err := c.Batch([]Request{r})
	if err != nil {
		return Response{}, err
	}
	return out[0], nil
}

// Load opens a GGUF file (path relative to the repository root, or
// absolute); vocabOnly skips the weights. It returns the model handle.
func (c *Client) Load(path string, vocabOnly bool) (int, error) {
	r, err := c.one(Request{"op": "load", "path": path, "vocabOnly": vocabOnly})
	return r.Model, err
}

// Tokenize is llama_tokenize(text, addSpecial, parseSpecial).
func (c *Client) Tokenize(model int, text string, addSpecial, parseSpecial bool) ([]int32, error) {
	r, err := c.one(Request{"op": "tokenize", "model": model, "text": text, "addSpecial": addSpecial, "parseSpecial": parseSpecial})
	return r.IDs, err
}

// Detokenize is llama_detokenize(ids, remove_special=false, unparse_special=special).
func (c *Client) Detokenize(model int, ids []int32, special bool) (string, error) {
	r, err := c.one(Request{"op": "detokenize", "model": model, "ids": ids, "special": special})
	if err != nil || r.Text == nil {
		return "", err
	}
	return *r.Text, nil
}

// Embed evaluates ids as one sequence in an embeddings context and returns
// llama_get_embeddings_seq (pooled as the model says, not normalized);
// with rank, in a ranking context: the classifier's raw scores.
func (c *Client) Embed(model int, ids []int32, rank bool) ([]float64, error) {
	r, err := c.one(Request{"op": "embed", "model": model, "ids": ids, "rank": rank})
	return r.Embedding, err
}

// Logits evaluates ids from an empty context and returns the logits after
// the last token, or after every token when all is set.
func (c *Client) Logits(model int, ids []int32, all bool) ([][]float64, error) {
	r, err := c.one(Request{"op": "logits", "model": model, "ids": ids, "all": all})
	return r.Logits, err
}

// Generate continues ids greedily for up to n tokens (stopping after an
// end-of-generation token).
func (c *Client) Generate(model int, ids []int32, n int) ([]int32, error) {
	r, err := c.one(Request{"op": "generate", "model": model, "ids": ids, "n": n})
	return r.IDs, err
}

// Shift evaluates all of ids but the last, erases the discard positions
// after the first keep as llama.cpp's context shift does (seq_rm, then
// seq_add of -discard to the later positions, whose keys llama.cpp
// re-rotates), and generates greedily from the last id, up to n tokens;
// it returns them and the logits row each was drawn from.
func (c *Client) Shift(model int, ids []int32, keep, discard, n int) ([]int32, [][]float64, error) {
	r, err := c.one(Request{"op": "shift", "model": model, "ids": ids, "keep": keep, "discard": discard, "n": n, "logits": true})
	return r.IDs, r.Logits, err
}

// Vocab returns libllama's per-token attribute bits (llama_token_attr) and
// end-of-generation set, with its bos/eos/eot ids (nil when absent).
func (c *Client) Vocab(model int) (Response, error) {
	return c.one(Request{"op": "vocab", "model": model})
}
