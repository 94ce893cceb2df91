// One benchmark run in this tab: ?engine=webgguf|wllama&model=URL&reps=R&gen=N.
// Loads the model into the engine (webgguf: its CPU backend in the engine
// worker; wllama 3.8.1: one thread, no GPU layers, its wasm served from
// node_modules on this origin), warms up, then completes a prompt of R
// repetitions of a Go snippet greedily for N tokens with EOS ignored, and
// resolves harnessDone with both engines' own llama-server-style timings.
//
// The GPU bench (gpu_test.go) adds: backend=webgpu|auto for webgguf;
// wgpu=1 (wllama keeps its default n_gpu_layers, i.e. asks for WebGPU) and
// threads=N for wllama; probe=1 (probe.js in each engine's worker: GPU
// buffer bytes, wasm memory, adapter and device requests, plus wllama's
// own log lines about its backend); umem=1 (the page's
// performance.measureUserAgentSpecificMemory() with the model loaded,
// workers included); warm=full (the warm-up prefills a prompt as long as
// the measured one, so both engines' prompt step shapes are warm);
// profile=1 with probe=1 (webgguf's per-kernel GPU profile of its last
// decode step, from its debug log, as `profile` in the result); depth=N
// with probe=1 (webgguf keeps N greedy steps in flight); batch=N with
// probe=1 (webgguf reads N greedy tokens back through one map); gaps=1 (webgguf's
// completion streamed, with the intervals between tokens as `gaps`).
import { createEngine } from '/jsbindings/src/index.js';
import { Wllama } from './node_modules/@wllama/wllama/esm/index.js';
import { ProbedWorker, probeNextScriptBlobs, snapshot } from './probe.js';

const q = new URLSearchParams(location.search);
const engine = q.get('engine');
const modelURL = new URL(q.get('model'), location.href).href;
const reps = Number(q.get('reps') || 8);
const gen = Number(q.get('gen') || 32);
const nCtx = Number(q.get('ctx') || 1024);
const backend = q.get('backend') || 'cpu'; // 'auto' must fall back to the CPU here
const probed = q.get('probe') === '1';
const wllamaGPU = q.get('wgpu') === '1';
const threads = Number(q.get('threads') || 1);
const umem = q.get('umem') === '1';
const warmFull = q.get('warm') === 'full';
const tokenGaps = q.get('gaps') === '1';

// gapStats summarizes the intervals between token arrival times (ms):
// percentiles, the largest, and every interval in order.
function gapStats(at) {
  const d = at.slice(1).map((t, i) => t - at[i]);
  const s = [...d].sort((a, b) => a - b);
  const p = (q) => (s.length ? s[Math.min(s.length - 1, Math.floor(q * s.length))] : 0);
  return { n: d.length, p10: p(0.1), p50: p(0.5), p90: p(0.9), max: s.length ? s[s.length - 1] : 0, ms: d.map((x) => Math.round(x * 1000) / 1000) };
}
const snippet = 'func (s *Server) handle(w http.ResponseWriter, r *http.Request) {\n\tif err := s.check(r); err != nil {\n\t\thttp.Error(w, err.Error(), 400)\n\t\treturn\n\t}\n}\n';
const prompt = snippet.repeat(reps);
const warmPrompt = 'package main\n';
const req = (p, n) => ({ prompt: p, max_tokens: n, temperature: 0, ignore_eos: true });
// Wall-clock milliseconds since the Unix epoch, for the Go side's CPU
// samples of the browser's processes (run_test.go).
const now = () => performance.timeOrigin + performance.now();

async function runWebgguf() {
  const t0 = performance.now();
  // With profile=1 (and probe=1) the engine logs a per-kernel profile of the
  // last step of each completion at debug level; the last one is returned.
  const profiles = [];
  const logger = (level, msg) => { if (String(msg).startsWith('profile')) profiles.push(String(msg)); };
  // The page knobs (probe.js sets them for profile=1, depth=N, batch=N) are
  // read by the test engine only; without them the release engine runs.
  const knobs = ['profile', 'depth', 'batch'].some((k) => q.has(k));
  const e = await createEngine({ backend, assetBaseURL: '/jsbindings/dist/', logger, ...(knobs ? { wasmURL: '/jsbindings/dist/engine-test.wasm' } : {}),
    ...(probed ? { Worker: ProbedWorker } : {}) });
  const info = await e.load(modelURL, { cache: false, contextSize: nCtx, backend });
  const loadMs = performance.now() - t0;
  // warm=full warms the measured prompt's own step shapes: a prompt that
  // differs in its first word, so the engine cannot reuse the cached
  // prefix (it keeps only the BOS) and prefills as many rows again.
  await e.completions.create(req(warmFull ? prompt.replace(/^func/, 'type') : warmPrompt, 4));
  const genStartMs = now();
  let r, gaps;
  if (tokenGaps) {
    // gaps=1: the same completion streamed, each token's arrival time
    // kept, so steady per-token cost and periodic stalls can be told apart.
    const at = [];
    let text = '', timings;
    for await (const c of await e.completions.create({ ...req(prompt, gen), stream: true })) {
      if (c.choices[0].text) { at.push(performance.now()); text += c.choices[0].text; }
      if (c.timings) timings = c.timings;
    }
    r = { timings, choices: [{ text }] };
    gaps = gapStats(at);
  } else {
    r = await e.completions.create(req(prompt, gen));
  }
  const genEndMs = now();
  const extra = await measure();
  e.terminate();
  return { loadMs, timings: r.timings, text: r.choices[0].text, backend: info.backend, backendBytes: info.backendBytes, wasmAfterLoad: info.wasmBytes, threads: 1, genStartMs, genEndMs, profile: profiles.at(-1) || '', gaps, ...extra };
}

async function runWllama() {
  const base = new URL('./node_modules/@wllama/wllama/esm/', location.href).href;
  // With the probe, wllama's native log is kept: its lines about the
  // WebGPU device and the offloaded layers say which backend it runs on.
  const log = [];
  const keep = (...a) => { const l = a.map(String).join(' '); if (/webgpu|gpu|offload|buffer size|device|adapter|f16/i.test(l)) log.push(l.slice(0, 300)); };
  const logger = { debug: keep, log: keep, info: keep, warn: keep, error: keep };
  if (probed) probeNextScriptBlobs('wllama');
  const w = new Wllama({ default: base + 'wasm/wllama.wasm' }, { suppressNativeLog: !probed, allowOffline: false, ...(probed ? { logger } : {}) });
  const t0 = performance.now();
  await w.loadModelFromUrl(modelURL, { n_threads: threads, ...(wllamaGPU ? {} : { n_gpu_layers: 0 }), n_ctx: nCtx, useCache: false });
  const loadMs = performance.now() - t0;
  await w.createCompletion({ ...req(warmFull ? prompt : warmPrompt, 4), cache_prompt: false });
  const genStartMs = now();
  const r = await w.createCompletion({ ...req(prompt, gen), cache_prompt: false });
  const genEndMs = now();
  const extra = await measure();
  const out = { loadMs, timings: r.timings, text: r.choices[0].text, multithread: w.isMultithread(), threads: w.getNumThreads(), webgpu: w.isSupportWebGPU(), genStartMs, genEndMs, wllamaLog: log, ...extra };
  await w.exit();
  return out;
}

// measure takes the probe's snapshot and the page's memory measurement
// while the model is still loaded (after the timed completion).
async function measure() {
  const out = {};
  if (probed) out.probe = await snapshot();
  if (umem && crossOriginIsolated && performance.measureUserAgentSpecificMemory) {
    const m = await performance.measureUserAgentSpecificMemory();
    out.uaMemory = m.bytes;
  }
  return out;
}

globalThis.harnessDone = (async () => {
  const res = engine === 'wllama' ? await runWllama() : await runWebgguf();
  return { engine, crossOriginIsolated, hasGPU: !!navigator.gpu, ...res };
})();
