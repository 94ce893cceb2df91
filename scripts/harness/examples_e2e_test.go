package harness

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/webgguf/webgguf/engine/enginetest"
)

// tab opens a new tab of the shared browser, collecting its console lines.
func tab(t *testing.T, e *env, timeout time.Duration) (context.Context, *[]string) {
	t.Helper()
	console := &[]string{}
	ctx, cancel := chromedp.NewContext(e.browser.browserCtx)
	t.Cleanup(cancel)
	tctx, tcancel := context.WithTimeout(ctx, timeout)
	t.Cleanup(tcancel)
	return tctx, console
}

// eval runs a JavaScript expression in the tab (awaiting a promise) and
// decodes its JSON value into out (may be nil).
func eval(ctx context.Context, expr string, out any) error {
	v, err := chromedp.Run(ctx, chromedp.Evaluate[json.RawMessage](expr, chromedp.EvalAwaitPromise))
	if err != nil {
		return err
	}
	if out != nil {
		return json.Unmarshal(v, out)
	}
	return nil
}

// waitFor polls a JavaScript condition until it is true; on timeout the
// error carries the page's last visible text.
func waitFor(ctx context.Context, cond, what string) error {
	var last struct {
		OK   bool
		Text string
	}
	for {
		if err := eval(ctx, "({ok: !!("+cond+"), text: document.body ? document.body.innerText.slice(0, 2000) : ''})", &last); err == nil && last.OK {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("waiting for %s: %w (page text: %q)", what, ctx.Err(), last.Text)
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// artifactDir is where screenshots meant for CI artifacts go:
// $HARNESS_ARTIFACTS, else build/artifacts under the repository.
func artifactDir(t *testing.T) string {
	if d := os.Getenv("HARNESS_ARTIFACTS"); d != "" {
		return d
	}
	root, err := RepoRoot(".")
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Join(root, "build", "artifacts")
}

// TestBasicExampleGreedyEqualsLlamaCpp drives examples/basic like a person:
// URL, Load, prompt, temperature 0, Generate; the token ids it shows equal
// llama.cpp's greedy tokens for that prompt (testdata/ref).
func TestBasicExampleGreedyEqualsLlamaCpp(t *testing.T) {
	e := setup(t)
	var r ref
	b, err := os.ReadFile("../../testdata/ref/tiny-llama-q8_0.ref.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	p := r.Prompts[3]
	ctx, _ := tab(t, e, 2*time.Minute)
	if err := chromedp.Do(ctx, chromedp.Navigate(e.srv.URL+"/examples/basic/")); err != nil {
		t.Fatal(err)
	}
	prompt, _ := json.Marshal(p.Prompt)
	steps := []string{
		`document.getElementById('status').textContent.startsWith('ready')`,
	}
	if err := waitFor(ctx, steps[0], "the engine"); err != nil {
		t.Fatal(err)
	}
	err = eval(ctx, `(() => {
		document.getElementById('url').value = '/testdata/models/tiny-llama-q8_0.gguf';
		document.getElementById('load').click();
		return true; })()`, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := waitFor(ctx, `!document.getElementById('generate').disabled`, "the model to load"); err != nil {
		t.Fatal(err)
	}
	err = eval(ctx, fmt.Sprintf(`(() => {
		document.getElementById('prompt').value = %s;
		document.getElementById('max').value = '%d';
		document.getElementById('temp').value = '0';
		document.getElementById('generate').click();
		return true; })()`, prompt, len(p.Greedy)), nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := waitFor(ctx, `document.getElementById('status').textContent.startsWith('done')`, "generation"); err != nil {
		t.Fatal(err)
	}
	var ids []int32
	if err := eval(ctx, `JSON.parse(document.getElementById('ids').textContent)`, &ids); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(ids, p.Greedy) {
		t.Fatalf("basic example greedy ids %v, llama.cpp %v", ids, p.Greedy)
	}
	var text string
	_ = eval(ctx, `document.getElementById('out').textContent`, &text)
	if text != p.GreedyText {
		t.Fatalf("basic example text %q, llama.cpp %q", text, p.GreedyText)
	}
}

// TestExtractExample drives examples/extract like a person: Load (gotiny),
// Extract with the page's message and schema; the JSON the page shows
// validates against examples/extract/schema.json (an independent JSON
// Schema validator, formats asserted) and the form shows its values.
func TestExtractExample(t *testing.T) {
	e := setup(t)
	ctx, _ := tab(t, e, 3*time.Minute)
	if err := chromedp.Do(ctx, chromedp.Navigate(e.srv.URL+"/examples/extract/")); err != nil {
		t.Fatal(err)
	}
	if err := waitFor(ctx, `document.getElementById('status').textContent.startsWith('ready')`, "the engine"); err != nil {
		t.Fatal(err)
	}
	if err := eval(ctx, `(() => { document.getElementById('load').click(); return true; })()`, nil); err != nil {
		t.Fatal(err)
	}
	if err := waitFor(ctx, `!document.getElementById('extract').disabled`, "the model to load"); err != nil {
		t.Fatal(err)
	}
	if err := eval(ctx, `(() => { document.getElementById('extract').click(); return true; })()`, nil); err != nil {
		t.Fatal(err)
	}
	if err := waitFor(ctx, `/^(done|[a-z-]+:)/.test(document.getElementById('status').textContent)`, "the extraction"); err != nil {
		t.Fatal(err)
	}
	var page struct {
		Status, Out string
		Form        map[string]any
	}
	err := eval(ctx, `({status: document.getElementById('status').textContent, out: document.getElementById('out').textContent,
		form: Object.fromEntries([...document.getElementById('form').elements].map((el) => [el.name, el.type === 'checkbox' ? el.checked : el.value]))})`, &page)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(page.Status, "done") {
		t.Fatalf("status %q, output %q", page.Status, page.Out)
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	f, err := os.Open("../../examples/extract/schema.json")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	doc, err := jsonschema.UnmarshalJSON(f)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.AddResource("schema.json", doc); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile("schema.json")
	if err != nil {
		t.Fatal(err)
	}
	inst, err := jsonschema.UnmarshalJSON(strings.NewReader(page.Out))
	if err != nil {
		t.Fatalf("output %q is not JSON: %v", page.Out, err)
	}
	if err := sch.Validate(inst); err != nil {
		t.Fatalf("output %q does not validate: %v", page.Out, err)
	}
	obj := inst.(map[string]any)
	for k, v := range obj {
		want := fmt.Sprint(v)
		if b, ok := v.(bool); ok {
			if page.Form[k] != b {
				t.Errorf("form %s = %v, output %v", k, page.Form[k], b)
			}
			continue
		}
		if fmt.Sprint(page.Form[k]) != want {
			t.Errorf("form %s = %q, output %q", k, page.Form[k], want)
		}
	}
	t.Logf("extracted %s", page.Out)
}

// TestSearchExample drives examples/search like a person: Load and index
// with tiny-bert (the local preset), search, then load a reranker (a rank
// pooling variant of tiny-bert written to /gen/) and search again. The
// ranking the page shows is recomputed here from the vectors it exposes
// (float64 dot products of unit vectors), the query and two documents are
// embedded again through the page's engine and must equal the index, and
// the reranked list is the same documents ordered by single-document
// rerank scores. Load, index and the first query take at most 60 s.
func TestSearchExample(t *testing.T) {
	e := setup(t)
	rank := filepath.Base(enginetest.PoolingVariant(t, e.genDir, "tiny-bert-f16", "bert", 4))
	ctx, _ := tab(t, e, 2*time.Minute)
	start := time.Now()
	if err := chromedp.Do(ctx, chromedp.Navigate(e.srv.URL+"/examples/search/")); err != nil {
		t.Fatal(err)
	}
	if err := waitFor(ctx, `document.body.dataset.state === 'idle'`, "the engine"); err != nil {
		t.Fatal(err)
	}
	var preset string
	_ = eval(ctx, `document.getElementById('preset').value`, &preset)
	if preset != "tiny-bert" {
		t.Fatalf("preselected preset %q, want tiny-bert", preset)
	}
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS("#load"))); err != nil {
		t.Fatal(err)
	}
	if err := waitFor(ctx, `['indexed', 'error'].includes(document.body.dataset.state)`, "the index"); err != nil {
		t.Fatal(err)
	}
	const query = "how do plants make food from sunlight"
	if err := eval(ctx, fmt.Sprintf(`(() => { document.getElementById('query').value = %q; document.getElementById('k').value = '5';
		document.getElementById('search').click(); return true; })()`, query), nil); err != nil {
		t.Fatal(err)
	}
	if err := waitFor(ctx, `/^(done|[a-z-]+:)/.test(document.getElementById('status').textContent)`, "the search"); err != nil {
		t.Fatal(err)
	}
	elapsed := time.Since(start)
	type shown struct {
		Index         int
		Score, Rerank float64
	}
	var page struct {
		Status  string
		Docs    []string
		Vectors [][]float64
		Last    struct {
			Query  string
			Vector []float64
		}
		Shown []shown
	}
	const read = `({status: document.getElementById('status').textContent, docs: webggufSearch.docs, vectors: webggufSearch.vectors(), last: webggufSearch.last,
		shown: [...document.querySelectorAll('#results li')].map((li) => ({index: +li.dataset.index, score: +li.dataset.score, rerank: +(li.dataset.rerank ?? NaN)}))})`
	if err := eval(ctx, read, &page); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(page.Status, "done") {
		t.Fatalf("status %q", page.Status)
	}
	if elapsed > 60*time.Second {
		t.Errorf("load, index and query took %v, want ≤ 60 s", elapsed)
	}
	if len(page.Docs) < 150 || len(page.Vectors) != len(page.Docs) || len(page.Shown) != 5 || page.Last.Query != query {
		t.Fatalf("%d docs, %d vectors, %d results, query %q", len(page.Docs), len(page.Vectors), len(page.Shown), page.Last.Query)
	}
	unit := func(what string, v []float64) {
		var s float64
		for _, x := range v {
			s += x * x
		}
		if len(v) != 96 || math.Abs(math.Sqrt(s)-1) > 1e-5 {
			t.Fatalf("%s: %d components, norm %v", what, len(v), math.Sqrt(s))
		}
	}
	unit("query", page.Last.Vector)
	cos := make([]float64, len(page.Vectors))
	for i, v := range page.Vectors {
		unit(fmt.Sprintf("doc %d", i), v)
		for j, x := range v {
			cos[i] += x * page.Last.Vector[j]
		}
	}
	// The shown list: scores as recomputed, best first, and no document
	// left out scores above the last one shown.
	listed := map[int]bool{}
	for n, r := range page.Shown {
		listed[r.Index] = true
		if math.Abs(r.Score-cos[r.Index]) > 1e-5 {
			t.Errorf("result %d (doc %d): page score %v, recomputed %v", n, r.Index, r.Score, cos[r.Index])
		}
		if n > 0 && cos[r.Index] > cos[page.Shown[n-1].Index]+1e-6 {
			t.Errorf("result %d (doc %d, %v) ranks below doc %d (%v)", n, r.Index, cos[r.Index], page.Shown[n-1].Index, cos[page.Shown[n-1].Index])
		}
	}
	floor := cos[page.Shown[len(page.Shown)-1].Index]
	for i, c := range cos {
		if !listed[i] && c > floor+1e-6 {
			t.Errorf("doc %d scores %v, above the last result shown (%v)", i, c, floor)
		}
	}
	// The query and two indexed documents embedded again, in one call.
	first, lastShown := page.Shown[0].Index, page.Shown[4].Index
	var again [][]float64
	if err := eval(ctx, fmt.Sprintf(`webggufSearch.engine.embeddings.create({input: [webggufSearch.last.query, webggufSearch.docs[%d], webggufSearch.docs[%d]]}).then((r) => r.data.map((d) => d.embedding))`, first, lastShown), &again); err != nil {
		t.Fatal(err)
	}
	for k, want := range [][]float64{page.Last.Vector, page.Vectors[first], page.Vectors[lastShown]} {
		for j := range want {
			if math.Abs(again[k][j]-want[j]) > 1e-6 {
				t.Fatalf("embedding %d again differs at %d: %v, page %v", k, j, again[k][j], want[j])
			}
		}
	}
	t.Logf("load, index (%d paragraphs) and query: %v; top: %d (%.4f) %q", len(page.Docs), elapsed, first, cos[first], page.Docs[first])

	// The reranker rescoring the same five documents.
	if err := eval(ctx, fmt.Sprintf(`(() => { document.getElementById('rerank-url').value = '/gen/%s'; document.getElementById('load-rerank').click(); return true; })()`, rank), nil); err != nil {
		t.Fatal(err)
	}
	if err := waitFor(ctx, `document.getElementById('use-rerank').checked || document.getElementById('status').className === 'error'`, "the reranker"); err != nil {
		t.Fatal(err)
	}
	if err := eval(ctx, `(() => { document.getElementById('status').textContent = ''; document.getElementById('search').click(); return true; })()`, nil); err != nil {
		t.Fatal(err)
	}
	if err := waitFor(ctx, `/^(done|[a-z-]+:)/.test(document.getElementById('status').textContent)`, "the reranked search"); err != nil {
		t.Fatal(err)
	}
	var reranked struct {
		Status string
		Shown  []shown
	}
	if err := eval(ctx, read, &reranked); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(reranked.Status, "done") || !strings.Contains(reranked.Status, "reranker") || len(reranked.Shown) != len(page.Shown) {
		t.Fatalf("reranked: status %q, %d results", reranked.Status, len(reranked.Shown))
	}
	for n, r := range reranked.Shown {
		if !listed[r.Index] {
			t.Errorf("reranked result %d is doc %d, not one of the cosine top 5", n, r.Index)
		}
		var one float64
		if err := eval(ctx, fmt.Sprintf(`webggufSearch.reranker.rerank({query: %q, documents: [webggufSearch.docs[%d]]}).then((r) => r.results[0].relevance_score)`, query, r.Index), &one); err != nil {
			t.Fatal(err)
		}
		if math.Abs(one-r.Rerank) > 1e-5 {
			t.Errorf("doc %d: page rerank score %v, alone %v", r.Index, r.Rerank, one)
		}
		if n > 0 && r.Rerank > reranked.Shown[n-1].Rerank {
			t.Errorf("reranked result %d (%v) above result %d (%v)", n, r.Rerank, n-1, reranked.Shown[n-1].Rerank)
		}
	}
	t.Logf("reranked: %+v", reranked.Shown)
}

// ref is the part of a llama.cpp fixture used here.
type ref struct {
	Prompts []struct {
		Prompt     string
		Ids        []int32
		Greedy     []int32
		GreedyText string `json:"greedy_text"`
	}
}

// TestChatDemo: pick nothing (gotiny is preselected), Load, type a message,
// send it, see the reply stream in, press Stop while it streams; the
// screenshot is kept for CI.
func TestChatDemo(t *testing.T) {
	e := setup(t)
	ctx, _ := tab(t, e, 3*time.Minute)
	if err := chromedp.Do(ctx, chromedp.Navigate(e.srv.URL+"/examples/chat/")); err != nil {
		t.Fatal(err)
	}
	if err := waitFor(ctx, `document.body.dataset.state === 'idle'`, "the engine"); err != nil {
		t.Fatal(err)
	}
	var preset string
	_ = eval(ctx, `document.getElementById('preset').value`, &preset)
	if preset != "gotiny" {
		t.Fatalf("preselected preset %q, want gotiny", preset)
	}
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS("#load"))); err != nil {
		t.Fatal(err)
	}
	if err := waitFor(ctx, `document.body.dataset.state === 'ready'`, "gotiny to load"); err != nil {
		t.Fatal(err)
	}
	// Long replies, so that Stop lands while tokens still stream.
	if err := eval(ctx, `document.getElementById('max_tokens').value = '2000'`, nil); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(ctx,
		chromedp.Click(chromedp.CSS("#input")),
		chromedp.SendKeys(chromedp.CSS("#input"), "func reverse(s string) string {"),
		chromedp.Click(chromedp.CSS("#send")),
	); err != nil {
		t.Fatal(err)
	}
	// Streamed: text shows up while the state is still "generating".
	if err := waitFor(ctx, `document.body.dataset.state === 'generating' && document.querySelector('.msg.assistant').textContent.length > 'func reverse(s string) string {'.length + 4`, "a streamed reply"); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS("#stop"))); err != nil {
		t.Fatal(err)
	}
	if err := waitFor(ctx, `document.body.dataset.state === 'ready'`, "stop"); err != nil {
		t.Fatal(err)
	}
	var got struct {
		User, Reply, Stats, Error string
	}
	if err := eval(ctx, `({user: document.querySelector('.msg.user').textContent, reply: document.querySelector('.msg.assistant').textContent,
		stats: document.getElementById('stats').textContent, error: document.getElementById('error').hidden ? '' : document.getElementById('error').textContent})`, &got); err != nil {
		t.Fatal(err)
	}
	if got.User != "func reverse(s string) string {" || got.Reply == "" || got.Error != "" || !strings.HasPrefix(got.Stats, "stopped after") {
		t.Fatalf("after stop: %+v", got)
	}
	// The reply stays as it was when stopped: nothing more arrives.
	time.Sleep(500 * time.Millisecond)
	var later string
	_ = eval(ctx, `document.querySelector('.msg.assistant').textContent`, &later)
	if later != got.Reply {
		t.Fatalf("the reply grew after Stop: %q → %q", got.Reply, later)
	}
	png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatal(err)
	}
	dir := artifactDir(t)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "chat-demo.png")
	if err := os.WriteFile(path, png, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("reply %q; %s; screenshot %s", got.Reply, got.Stats, path)
}

// switchProxy forwards to target until it is switched off; then every
// connection is dropped without a response, as when the network is gone.
type switchProxy struct {
	off   atomic.Bool
	proxy *httputil.ReverseProxy
}

func (s *switchProxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if s.off.Load() {
		if hj, ok := w.(http.Hijacker); ok {
			if c, _, err := hj.Hijack(); err == nil {
				c.Close()
				return
			}
		}
		panic(http.ErrAbortHandler)
	}
	s.proxy.ServeHTTP(w, r)
}

// TestPWAOffline: visit the PWA online (the service worker caches the app
// and the engine, the model goes to OPFS), then take the network away — CDP
// offline emulation for the tab and its service worker, and the server
// itself stops answering — reload, load the cached model and generate.
func TestPWAOffline(t *testing.T) {
	e := setup(t)
	target, _ := url.Parse(e.srv.URL)
	sp := &switchProxy{proxy: httputil.NewSingleHostReverseProxy(target)}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: sp}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { srv.Close() })
	base := "http://" + ln.Addr().String()

	ctx, _ := tab(t, e, 4*time.Minute)
	if err := chromedp.Do(ctx, chromedp.Navigate(base+"/examples/pwa/")); err != nil {
		t.Fatal(err)
	}
	if err := waitFor(ctx, `['ready', 'cached'].includes(document.body.dataset.state)`, "the app online"); err != nil {
		t.Fatal(err)
	}
	if err := waitFor(ctx, `navigator.serviceWorker.controller`, "the service worker to control the page"); err != nil {
		t.Fatal(err)
	}
	var state string
	_ = eval(ctx, `document.body.dataset.state`, &state)
	if state == "ready" {
		if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS("#download"))); err != nil {
			t.Fatal(err)
		}
		if err := waitFor(ctx, `document.body.dataset.state === 'cached'`, "the model download"); err != nil {
			t.Fatal(err)
		}
	}

	// Offline.
	sp.off.Store(true)
	offline := true
	if _, err := chromedp.Run(ctx, func(ctx context.Context, tg *chromedp.Target) (chromedp.Void, error) {
		if _, err := cdp.Call(ctx, tg, network.Enable, network.EnableParams{}); err != nil {
			return chromedp.Void{}, err
		}
		if _, err := cdp.Call(ctx, tg, network.EmulateNetworkConditionsByRule, network.EmulateNetworkConditionsByRuleParams{
			EmulateOfflineServiceWorker: &offline,
			MatchedNetworkConditions:    []*network.Conditions{{Offline: true, DownloadThroughput: -1, UploadThroughput: -1}},
		}); err != nil {
			return chromedp.Void{}, err
		}
		_, err := cdp.Call(ctx, tg, network.OverrideNetworkState, network.OverrideNetworkStateParams{Offline: true, DownloadThroughput: -1, UploadThroughput: -1})
		return chromedp.Void{}, err
	}); err != nil {
		t.Fatal(err)
	}
	var reachable bool
	if err := eval(ctx, `fetch('/testdata/models/tiny-llama-q8_0.gguf', {cache: 'no-store'}).then(() => true, () => false)`, &reachable); err != nil {
		t.Fatal(err)
	}
	if reachable {
		t.Fatal("the network is still reachable from the page")
	}
	if err := chromedp.Do(ctx, chromedp.Reload()); err != nil {
		t.Fatal(err)
	}
	if err := waitFor(ctx, `document.body.dataset.state === 'cached' && document.getElementById('net').textContent === 'offline'`, "the app offline"); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS("#load"))); err != nil {
		t.Fatal(err)
	}
	if err := waitFor(ctx, `document.body.dataset.state === 'loaded'`, "the cached model to load offline"); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS("#generate"))); err != nil {
		t.Fatal(err)
	}
	if err := waitFor(ctx, `document.body.dataset.state === 'generated'`, "generation offline"); err != nil {
		t.Fatal(err)
	}
	var out string
	_ = eval(ctx, `document.getElementById('out').textContent`, &out)
	if len(out) == 0 {
		t.Fatal("no text generated offline")
	}
	t.Logf("offline completion: %q", out)
}
