// The engine's Web Worker bootstrap (a module worker). The page starts it with
// new Worker(url, { type: 'module' }) and posts { t: 'init', wasm, exec, gpu? }:
// the URLs of the engine's .wasm, of Go's wasm_exec.js and (optional) of
// webgpu-runtime.js (default: beside wasm_exec.js). Everything else it
// receives is a GLUE frame: an ArrayBuffer whose first bytes are the frame
// (pooled buffers are larger than their frames).
//
// Frames that arrive before Go has installed its handler are queued (they would
// otherwise be lost) and delivered, in order, once Go calls ready(). Go copies
// each frame into its own memory synchronously, so the ArrayBuffer goes into a
// pool right away and carries one of Go's outgoing frames back to the page.
//
// Control messages to the page (plain objects): { t: 'ready' } when Go serves,
// { t: 'exit', code } when the Go program has ended, { t: 'fatal', message }
// when the engine could not start. Uncaught errors surface as the Worker's
// 'error' event. The page treats exit, fatal and error as a crash.

const MAGIC = 0x45554c47; // "GLUE"
const HEADER = 20;

let deliver = null; // Go's frame handler, set by ready()
let started = false;
const queue = [];

// Power-of-two size-classed pool of ArrayBuffers (see jsbindings/src/pool.js;
// kept inline so this file runs without imports).
const pool = new Map();
const MAX_PER_CLASS = 8;
const MAX_POOLED = 256 << 20;
let pooled = 0;
function take(n) {
  let size = 4096;
  while (size < n) size *= 2;
  const list = pool.get(size);
  if (list && list.length) {
    pooled -= size;
    return list.pop();
  }
  return new ArrayBuffer(size);
}
function give(buf) {
  const len = buf.byteLength;
  if (len < 4096 || (len & (len - 1)) !== 0 || pooled + len > MAX_POOLED) return;
  let list = pool.get(len);
  if (!list) pool.set(len, (list = []));
  if (list.length < MAX_PER_CLASS) {
    list.push(buf);
    pooled += len;
  }
}

function deliverFrame(buf) {
  let n = buf.byteLength;
  if (n >= HEADER) {
    const dv = new DataView(buf);
    const len = dv.getUint32(16, true);
    if (dv.getUint32(0, true) === MAGIC && len >= HEADER && len < n) n = len; // Go checks the rest
  }
  deliver(new Uint8Array(buf, 0, n), n);
  give(buf);
}

function flush() {
  while (deliver && queue.length) deliverFrame(queue.shift());
}

self.onmessage = (e) => {
  const d = e.data;
  if (d instanceof ArrayBuffer) {
    if (deliver && !queue.length) deliverFrame(d);
    else queue.push(d);
    return;
  }
  if (d && d.t === 'init' && !started) {
    started = true;
    start(d).catch((err) => self.postMessage({ t: 'fatal', message: String((err && err.stack) || err) }));
  }
};

let memory = null; // the Go instance's linear memory

// The object Go's worker.Run looks up: ready(deliver) installs Go's frame
// handler; send(ptr, n) copies the n-byte frame at address ptr of Go's memory
// into a pooled buffer and transfers that to the page: one call from Go per
// frame, and no JS object handed back to Go (each would need a Go finalizer).
globalThis.webggufWorker = {
  ready(fn) {
    deliver = fn;
    self.postMessage({ t: 'ready' });
    queueMicrotask(flush); // after Go returns from this call and blocks
  },
  send(ptr, n) {
    const buf = take(n);
    new Uint8Array(buf, 0, n).set(new Uint8Array(memory.buffer, ptr, n));
    self.postMessage(buf, [buf]);
  },
};

// loadGPURuntime imports webgpu/runtime.js, shipped as webgpu-runtime.js
// beside wasm_exec.js (the npm package's dist/, the harness build folder),
// or at cfg.gpu when the page names it (bundlers rename assets): it defines
// globalThis.webggufGPURuntime, which the Go WebGPU binding uses instead of
// evaluating its embedded copy (eval is refused by a
// Content-Security-Policy without 'unsafe-eval'). Its absence is
// not fatal: the engine still runs on the CPU, and the Go side names the cause.
async function loadGPURuntime(url) {
  try {
    await import(url);
  } catch (err) {
    console.warn('webgguf: WebGPU runtime not loaded:', String((err && err.message) || err));
  }
}

async function start(cfg) {
  const execURL = new URL(cfg.exec, self.location.href).href;
  await import(execURL); // defines globalThis.Go
  await loadGPURuntime(cfg.gpu ? new URL(cfg.gpu, self.location.href).href : new URL('webgpu-runtime.js', execURL).href);
  const go = new globalThis.Go();
  let code = 0;
  const exit = go.exit;
  go.exit = (c) => {
    code = c;
    exit(c);
  };
  const url = new URL(cfg.wasm, self.location.href).href;
  let result;
  try {
    result = await WebAssembly.instantiateStreaming(fetch(url), go.importObject);
  } catch (err) {
    // a server without the application/wasm MIME type: fall back to bytes
    const resp = await fetch(url);
    if (!resp.ok) throw new Error(`fetch ${url}: HTTP ${resp.status}`);
    result = await WebAssembly.instantiate(await resp.arrayBuffer(), go.importObject);
  }
  memory = result.instance.exports.mem;
  await go.run(result.instance); // resolves when the Go program exits
  deliver = null;
  self.postMessage({ t: 'exit', code });
}
