package gen

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// oracle drives scripts/oracle/oracle.mjs (llama.cpp through
// node-llama-cpp's prebuilt CPU binary) over JSON lines.
type oracle struct {
	cmd  *exec.Cmd
	in   io.WriteCloser
	out  *bufio.Reader
	next int
}

// sharedOracle is started by the first test that needs it and stopped by
// TestMain: starting node and llama.cpp takes seconds. The tests that use
// it do not run in parallel.
var sharedOracle *oracle

func TestMain(m *testing.M) {
	code := m.Run()
	if sharedOracle != nil {
		sharedOracle.stop()
	}
	os.Exit(code)
}

// startOracle returns the shared oracle, starting it if needed; it skips
// the test (fails it under CI) when the oracle is not installed.
func startOracle(t *testing.T) *oracle {
	t.Helper()
	if sharedOracle != nil {
		return sharedOracle
	}
	root, _ := filepath.Abs("..")
	script := filepath.Join(root, "scripts", "oracle", "oracle.mjs")
	_, errNode := exec.LookPath("node")
	_, errMods := os.Stat(filepath.Join(root, "scripts", "oracle", "node_modules", "node-llama-cpp"))
	if errNode != nil || errMods != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("llama.cpp oracle not installed (make deps): node %v, modules %v", errNode, errMods)
		}
		t.Skipf("llama.cpp oracle not installed (make deps): node %v, modules %v", errNode, errMods)
	}
	cmd := exec.Command("node", script)
	cmd.Dir = root
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sharedOracle = &oracle{cmd: cmd, in: in, out: bufio.NewReaderSize(out, 1<<20)}
	return sharedOracle
}

// stop closes the oracle's input and waits for it to exit.
func (o *oracle) stop() {
	o.in.Close()
	done := make(chan struct{})
	go func() { o.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		o.cmd.Process.Kill()
	}
}

// call sends one request and decodes the response into resp; it fails
// after a minute instead of hanging.
func (o *oracle) call(req map[string]any, resp any) error {
	o.next++
	req["id"] = o.next
	line, _ := json.Marshal(req)
	if _, err := o.in.Write(append(line, '\n')); err != nil {
		return err
	}
	type result struct {
		b   []byte
		err error
	}
	ch := make(chan result, 1)
	go func() { b, err := o.out.ReadBytes('\n'); ch <- result{b, err} }()
	select {
	case r := <-ch:
		if r.err != nil {
			return r.err
		}
		var head struct {
			OK    bool   `json:"ok"`
			Error string `json:"error"`
		}
		if err := json.Unmarshal(r.b, &head); err != nil {
			return err
		}
		if !head.OK {
			return fmt.Errorf("llama.cpp: %s", head.Error)
		}
		return json.Unmarshal(r.b, resp)
	case <-time.After(time.Minute):
		o.cmd.Process.Kill()
		return fmt.Errorf("oracle did not answer %s within a minute", req["op"])
	}
}
