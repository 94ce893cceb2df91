// The page side of the engine: spawns the engine's module worker from a URL
// (no blob: URLs, so a strict CSP works), sends GLUE request frames in
// transferred, pooled ArrayBuffers, and turns the replies into promises,
// async iterators, typed errors and crash notices.

import { encodeFrame, decodeFrame } from './codec.js';
import { Kind } from './wire.js';
import { messages, MessageType } from './glue.gen.js';
import { BufferPool } from './pool.js';
import { GlueCallError, GlueCrashedError } from './errors.js';

// absolute resolves a URL against the page, so relative URLs mean what they
// say on the page (the worker would resolve them against its own script).
function absolute(u) {
  return globalThis.location ? new URL(String(u), globalThis.location.href).href : String(u);
}

const owners = new WeakMap(); // decoded message → the ArrayBuffer its views live in

/**
 * GlueClient drives one engine worker. Options:
 *   workerURL: URL of worker.js (the bootstrap)      default ../dist/worker.js
 *   wasmURL:   URL of the engine's .wasm               default ../dist/engine.wasm
 *   execURL:   URL of Go's wasm_exec.js                default ../dist/wasm_exec.js
 *   gpuURL:    URL of webgpu-runtime.js (the WebGPU    default ../dist/webgpu-runtime.js, or beside
 *              runtime the worker imports as a script)         execURL when only that is given
 *   pool:      a BufferPool shared with other clients  default a new one
 *   Worker:    the Worker constructor (tests)          default globalThis.Worker
 */
export class GlueClient {
  /** @param {import('./protocol.js').GlueClientOptions} [options] */
  constructor(options = {}) {
    // Written as literal new URL('…', import.meta.url) so that bundlers
    // (Vite, webpack 5, esbuild with plugins) find the engine's assets and
    // emit them with the app.
    /** @type {import('./protocol.js').GlueClientOptions} */
    this.options = {
      workerURL: new URL('../dist/worker.js', import.meta.url),
      wasmURL: new URL('../dist/engine.wasm', import.meta.url),
      execURL: new URL('../dist/wasm_exec.js', import.meta.url),
      // Named here (not only found by the worker beside wasm_exec.js) so a
      // bundler emits it with the app under whatever name it gives it;
      // without it the engine falls back to the CPU under a CSP that
      // refuses eval.
      gpuURL: new URL('../dist/webgpu-runtime.js', import.meta.url),
      ...options,
    };
    // An engine whose wasm_exec.js is named elsewhere has its WebGPU
    // runtime beside it unless gpuURL says otherwise (the worker's default).
    if (options.execURL && !options.gpuURL) delete this.options.gpuURL;
    /** @type {import('./protocol.js').BufferPool} */
    this.pool = this.options.pool || new BufferPool();
    /** @type {Record<string, Set<(value: any) => void>>} */
    this.listeners = { event: new Set(), protocolError: new Set(), crash: new Set() };
    this.lastId = 0;
    // Set by start(); declared here for the type checker.
    /** @type {'starting' | 'ready' | 'crashed' | 'closed'} */
    this.state = 'starting';
    /** @type {string | undefined} */
    this.crashReason = undefined;
    /** @type {Map<number, any>} */
    this.pending = new Map();
    /** @type {Promise<void>} */
    this.ready = Promise.resolve();
    /** @type {(v?: void) => void} */
    this.readyResolve = () => {};
    /** @type {(err: Error) => void} */
    this.readyReject = () => {};
    /** @type {Worker} */
    this.worker = /** @type {any} */ (null);
    this.start();
  }

  /** Spawns the worker; ready resolves when Go serves, rejects if the engine crashes first. */
  start() {
    const W = /** @type {new (url: string, options: WorkerOptions) => Worker} */ (this.options.Worker || globalThis.Worker);
    this.state = 'starting';
    this.pending = new Map(); // id → call
    this.ready = new Promise((resolve, reject) => { this.readyResolve = resolve; this.readyReject = reject; });
    this.ready.catch(() => {}); // a crash before anyone awaits ready is reported through calls and 'crash'
    const w = new W(absolute(/** @type {string | URL} */ (this.options.workerURL)), { type: 'module', name: 'webgguf-engine' });
    this.worker = w;
    w.onmessage = (e) => { if (this.worker === w) this.onMessage(e.data); };
    w.onerror = (e) => {
      if (e && typeof e.preventDefault === 'function') e.preventDefault();
      if (this.worker === w) this.crash(`engine worker error: ${(e && e.message) || 'unknown error'}${e && e.filename ? ` (${e.filename}:${e.lineno})` : ''}`);
    };
    w.onmessageerror = () => { if (this.worker === w) this.crash('engine worker sent a message that could not be deserialized'); };
    w.postMessage({ t: 'init', wasm: absolute(/** @type {string | URL} */ (this.options.wasmURL)), exec: absolute(/** @type {string | URL} */ (this.options.execURL)), ...(this.options.gpuURL ? { gpu: absolute(this.options.gpuURL) } : {}) });
  }

  /**
   * Hands Files/Blobs to the engine under id (a structured clone: the
   * bytes stay in the Blob, nothing is copied), for a ModelLoadRequest's
   * blobID; an empty list makes the engine forget the id. Messages reach
   * the worker in order, so a request sent after this call finds them.
   */
  postBlobs(id, blobs) {
    if (this.state === 'crashed' || this.state === 'closed') throw new GlueCrashedError(`engine is ${this.state}`);
    this.worker.postMessage({ t: 'webgguf.blobs', id: String(id), blobs: Array.from(blobs) });
  }

  /**
   * Subscribes to 'event' (engine events not tied to a call, e.g. logs), 'protocolError' or 'crash'; returns an unsubscribe function.
   * @param {'event' | 'protocolError' | 'crash'} name
   * @param {(value: any) => void} fn
   * @returns {() => void}
   */
  on(name, fn) {
    const set = this.listeners[name];
    if (!set) throw new TypeError(`unknown event ${name}`);
    set.add(fn);
    return () => { set.delete(fn); };
  }

  emit(name, value) {
    for (const fn of this.listeners[name]) {
      try { fn(value); } catch (err) { queueMicrotask(() => { throw err; }); }
    }
  }

  nextId() {
    do { this.lastId = (this.lastId + 1) >>> 0; } while (this.lastId === 0 || this.pending.has(this.lastId));
    return this.lastId;
  }

  /**
   * Sends a request and resolves with the decoded response message. type is
   * a message name ('EchoRequest') or id. options.signal cancels the call
   * (the engine's handler sees its context canceled); options.onEvent(name,
   * msg) receives the call's server-push events. Rejects with GlueCallError
   * (engine-side failure), GlueCrashedError, or the signal's reason.
   */
  call(type, msg, options = {}) {
    return new Promise((resolve, reject) => {
      this.begin(type, msg, options.signal, { resolve, reject, onEvent: options.onEvent });
    });
  }

  /**
   * Sends a request whose events are consumed as an async iterator of
   * { name, msg }; the final response is in .result. Leaving the loop early
   * (break, return, throw) cancels the call.
   */
  stream(type, msg, options = {}) {
    return new CallStream(this, type, msg, options.signal);
  }

  begin(type, msg, signal, call) {
    if (this.state === 'crashed' || this.state === 'closed') {
      call.reject(new GlueCrashedError(`engine is ${this.state}${this.crashReason ? ': ' + this.crashReason : ''}; call restart()`));
      return 0;
    }
    if (signal && signal.aborted) {
      call.reject(signal.reason);
      return 0;
    }
    let frame;
    const id = this.nextId();
    try {
      frame = encodeFrame(Kind.Request, id, type, msg, this.pool);
    } catch (err) {
      call.reject(err);
      return 0;
    }
    call.id = id;
    this.pending.set(id, call);
    if (signal) {
      call.signal = signal;
      call.onAbort = () => this.cancel(id, signal.reason);
      signal.addEventListener('abort', call.onAbort, { once: true });
    }
    this.worker.postMessage(frame.buffer, [frame.buffer]);
    return id;
  }

  /** Cancels call id: rejects it locally now and asks the engine to stop its handler. */
  cancel(id, reason) {
    const call = this.pending.get(id);
    if (!call) return;
    this.finish(id);
    if (this.state !== 'crashed' && this.state !== 'closed') {
      const frame = encodeFrame(Kind.Cancel, id, MessageType.Cancel, { reason: reason && reason.message ? String(reason.message) : '' }, this.pool);
      this.worker.postMessage(frame.buffer, [frame.buffer]);
    }
    call.reject(reason !== undefined ? reason : new DOMException('The call was canceled.', 'AbortError'));
  }

  finish(id) {
    const call = this.pending.get(id);
    if (!call) return undefined;
    this.pending.delete(id);
    if (call.signal) call.signal.removeEventListener('abort', call.onAbort);
    return call;
  }

  onMessage(d) {
    if (d instanceof ArrayBuffer) {
      this.onFrame(d);
      return;
    }
    if (!d || typeof d !== 'object') return;
    if (d.t === 'ready') {
      if (this.state === 'starting') this.state = 'ready';
      this.readyResolve();
    } else if (d.t === 'exit') {
      this.crash(`engine exited with code ${d.code}`);
    } else if (d.t === 'fatal') {
      this.crash(`engine failed to start: ${d.message}`);
    }
  }

  onFrame(buf) {
    let f;
    try {
      f = decodeFrame(buf);
    } catch (err) {
      this.pool.give(buf);
      this.emit('protocolError', err);
      return;
    }
    const call = f.id === 0 ? undefined : this.pending.get(f.id);
    const keep = messages[f.type].views && (f.kind === Kind.Response || f.kind === Kind.Event) && (call || f.id === 0);
    if (keep) owners.set(f.msg, buf); // the message's views live in buf until release(msg)
    else this.pool.give(buf);
    if (f.id === 0) {
      if (f.kind === Kind.Error) this.emit('protocolError', GlueCallError.fromWire(f.msg));
      else this.emit('event', { name: f.name, msg: f.msg });
      return;
    }
    if (!call) return; // a late frame of a canceled call
    switch (f.kind) {
      case Kind.Event:
        if (call.onEvent) call.onEvent(f.name, f.msg);
        break;
      case Kind.Response:
        this.finish(f.id);
        call.resolve(f.msg);
        break;
      case Kind.Error:
        this.finish(f.id);
        call.reject(GlueCallError.fromWire(f.msg));
        break;
      default:
        this.finish(f.id);
        call.reject(new GlueCallError('protocol', `engine sent a ${f.kind} frame for call ${f.id}`));
    }
  }

  /**
   * Returns the buffer a decoded response or event lives in to the pool, so
   * the next frame can travel in it instead of a new allocation. Its raw and
   * numeric array fields are invalid afterwards.
   */
  release(msg) {
    const buf = owners.get(msg);
    if (!buf) return;
    owners.delete(msg);
    this.pool.give(buf);
  }

  crash(reason) {
    if (this.state === 'crashed' || this.state === 'closed') return;
    this.state = 'crashed';
    this.crashReason = reason;
    this.failAll(new GlueCrashedError(reason));
    this.emit('crash', new GlueCrashedError(reason));
  }

  failAll(err) {
    const calls = [...this.pending.keys()].map((id) => this.finish(id));
    this.readyReject(err);
    this.worker.terminate();
    for (const c of calls) c.reject(err);
  }

  /** Stops the engine: pending calls are rejected; restart() starts a new one. */
  terminate() {
    if (this.state === 'closed') return;
    if (this.state !== 'crashed') this.failAll(new GlueCrashedError('engine was terminated'));
    this.state = 'closed';
  }

  /** Starts a fresh engine worker (after a crash, or to replace a running one). */
  restart() {
    if (this.state !== 'crashed' && this.state !== 'closed') this.failAll(new GlueCrashedError('engine was restarted'));
    this.crashReason = undefined;
    this.start();
    return this.ready;
  }

  /**
   * Posts a hand-made frame as-is (protocol tests: malformed input). If id is
   * given, resolves or rejects with the engine's answer to that id.
   */
  injectFrame(buffer, id) {
    if (!id) {
      this.worker.postMessage(buffer, [buffer]);
      return Promise.resolve();
    }
    return new Promise((resolve, reject) => {
      this.pending.set(id, { id, resolve, reject });
      this.worker.postMessage(buffer, [buffer]);
    });
  }
}

/** The async iterator returned by GlueClient.stream. */
export class CallStream {
  constructor(engine, type, msg, signal) {
    this.engine = engine;
    this.queue = [];
    this.waiters = [];
    this.done = false;
    this.error = undefined;
    this.result = new Promise((resolve, reject) => {
      this.id = engine.begin(type, msg, signal, {
        onEvent: (name, m) => this.push({ value: { name, msg: m }, done: false }),
        resolve: (m) => { this.end(); resolve(m); },
        reject: (err) => { this.end(err); reject(err); },
      });
    });
    this.result.catch(() => {}); // the iterator reports the error too
  }

  push(item) {
    const w = this.waiters.shift();
    if (w) w.resolve(item);
    else this.queue.push(item);
  }

  end(err) {
    if (this.done) return;
    this.done = true;
    this.error = err;
    for (const w of this.waiters.splice(0)) {
      if (err) w.reject(err);
      else w.resolve({ value: undefined, done: true });
    }
  }

  next() {
    if (this.queue.length) return Promise.resolve(this.queue.shift());
    if (this.done) return this.error ? Promise.reject(this.error) : Promise.resolve({ value: undefined, done: true });
    return new Promise((resolve, reject) => this.waiters.push({ resolve, reject }));
  }

  /** @returns {Promise<IteratorReturnResult<undefined>>} */
  return() {
    if (!this.done) this.engine.cancel(this.id, new DOMException('The stream was closed by its consumer.', 'AbortError'));
    this.queue.length = 0;
    return Promise.resolve({ value: undefined, done: /** @type {const} */ (true) });
  }

  [Symbol.asyncIterator]() { return this; }
}
