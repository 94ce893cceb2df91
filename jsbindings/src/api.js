// The public API: createEngine() and the OpenAI-shaped engine object built on
// the low-level client (client.js).

import { GlueClient } from './client.js';
import { WebGGUFError } from './webgguf-error.js';
import { absoluteURL, idFor } from './cache.js';
import { WorkerModelCache } from './cache-worker.js';
import { fetchBytes } from './fetch.js';
import { shardURLs, orderShards } from './split.js';
import { splitMessages, chatFields, toolCallsOf, sampling, responseId, usageOf } from './openai.js';
import { embedRequest, embedResponse, rerankRequest, rerankResponse } from './embeddings.js';
import { MessageType } from './glue.gen.js';

const BACKENDS = new Set(['auto', 'webgpu', 'cpu']);
let blobSeq = 0; // ids of Blobs posted to engine workers for load()

/**
 * Starts an engine (a Web Worker running the Go engine) and resolves when it
 * serves. See index.d.ts for the options.
 * @param {import('./index.js').CreateEngineOptions} [options]
 * @returns {Promise<WebGGUFEngine>}
 */
export async function createEngine(options = {}) {
  const backend = options.backend ?? 'auto';
  if (!BACKENDS.has(backend)) throw new WebGGUFError('invalid-argument', `backend must be 'auto', 'webgpu' or 'cpu', not ${JSON.stringify(backend)}`);
  const urls = {};
  const base = options.assetBaseURL ? new URL(String(options.assetBaseURL), globalThis.location ? location.href : undefined) : null;
  for (const [key, file] of [['workerURL', 'worker.js'], ['wasmURL', 'engine.wasm'], ['execURL', 'wasm_exec.js'], ['gpuURL', 'webgpu-runtime.js']]) {
    if (options[key]) urls[key] = options[key];
    else if (base) urls[key] = new URL(file, base.href.endsWith('/') ? base : base.href + '/');
  }
  const client = new GlueClient({ ...urls, ...(options.Worker ? { Worker: options.Worker } : {}) });
  const e = new WebGGUFEngine(client, { backend, logger: options.logger });
  try {
    await client.ready;
    e.hello = await client.call('HelloRequest', {});
    // The model cache and named load sources (cache entries, URLs, posted
    // Blobs) are the engine worker's: an engine.wasm without them is not
    // this package's.
    if (!Array.from(e.hello.requests).includes(MessageType.OpfsListRequest)) {
      throw new WebGGUFError('internal', `This engine.wasm (${e.hello.engine || 'unnamed'}, protocol ${e.hello.protocol}) has no model cache: it is not the one of this package version. Serve the package's dist/engine.wasm.`);
    }
  } catch (err) {
    client.terminate();
    throw WebGGUFError.from(err);
  }
  return e;
}

/** The engine object createEngine resolves to. */
export class WebGGUFEngine {
  /**
   * @param {GlueClient} client
   * @param {{ backend: 'auto' | 'webgpu' | 'cpu', logger?: import('./index.js').Logger }} options
   */
  constructor(client, { backend, logger }) {
    this.client = client;
    /** @type {any} the engine's HelloResponse, set by createEngine */
    this.hello = null;
    this.backend = backend;
    this.logger = logger;
    this.tail = Promise.resolve(); // the request queue: one call runs at a time
    this.cache = new WorkerModelCache((type, msg, signal, onEvent) => this.call(type, msg, signal, onEvent));
    /** @type {import('./index.js').ModelInfo | null} */
    this.model = null;
    const self = this;
    this.chat = { completions: { create: (req, opts) => withOptions(req, opts, (r) => self.createChat(r)) } };
    this.completions = { create: (req, opts) => withOptions(req, opts, (r) => self.createCompletion(r)) };
    this.embeddings = { create: (req, opts) => withOptions(req, opts, (r) => self.createEmbeddings(r)) };
    this.rerank = (req, opts) => withOptions(req, opts, (r) => self.createRerank(r));
    const wrap = (p) => p.catch((err) => { throw WebGGUFError.from(err); });
    this.models = {
      list: () => wrap(this.cache.list()),
      download: (url, opts = {}) => wrap((async () => this.cache.download(oneOrAll(shardURLs(absoluteURL(url))), { id: opts.id, signal: opts.signal, onProgress: progressFn(opts.onProgress, 'download') }))()),
      delete: (id) => wrap(this.cache.delete(id)),
      clear: () => wrap(this.cache.clear()),
      estimate: (opts) => wrap(this.cache.estimate(opts)),
      has: async (source) => (source.includes('/') || source.includes(':') ? this.cachedURL(await idFor(source), source) : !!(await this.cache.get(source))),
      idFor: (url) => idFor(url),
    };
    this.sessions = {
      save: (opts = {}) => this.enqueue(opts.signal, async () => {
        const r = await this.call('SessionSaveRequest', { meta: opts.meta === undefined ? '' : JSON.stringify(opts.meta) }, opts.signal);
        return r.data;
      }),
      restore: (data, opts = {}) => this.enqueue(opts.signal, async () => {
        if (!(data instanceof Uint8Array)) throw new WebGGUFError('invalid-argument', 'sessions.restore takes the Uint8Array sessions.save resolved to');
        const r = await this.call('SessionRestoreRequest', { data }, opts.signal);
        return { tokens: r.tokens, meta: r.meta ? JSON.parse(r.meta) : undefined };
      }),
    };
    if (logger) client.on('event', ({ name, msg }) => { if (name === 'Log') log(logger, msg.level, msg.message); });
    client.on('crash', (err) => { this.model = null; if (logger) log(logger, 8, err.message); });
  }

  /**
   * Runs fn after every call queued before it (the engine runs one at a
   * time; queuing here keeps their order). A signal that fires while the
   * call waits rejects it without running it.
   */
  enqueue(signal, fn) {
    const run = this.tail.then(() => {
      if (signal && signal.aborted) throw signal.reason;
      return fn();
    });
    this.tail = run.catch(() => {});
    return run.catch((err) => {
      if (signal && signal.aborted && !(err instanceof WebGGUFError && err.code !== 'aborted')) {
        throw new WebGGUFError('aborted', 'The call was aborted.', { cause: signal.reason });
      }
      throw WebGGUFError.from(err);
    });
  }

  async call(type, msg, signal, onEvent) {
    if (this.client.state === 'crashed' || this.client.state === 'closed') {
      throw new WebGGUFError('crashed', `The engine is ${this.client.state}${this.client.crashReason ? ': ' + this.client.crashReason : ''}; create a new one.`);
    }
    try {
      return await this.client.call(type, msg, { signal, onEvent });
    } catch (err) {
      // A lost GPU device fails the call and the engine frees its model.
      if (err && err.kind === 'device-lost') this.model = null;
      throw err;
    }
  }

  /**
   * Loads a model: a URL (downloaded, and cached unless cache: false), a
   * cached model's id, a File/Blob, or bytes. Resolves to the model's info.
   *
   * The page names the source and the worker reads it: a cache entry
   * through OPFS, a URL with Range requests, a File/Blob posted to the
   * worker (a structured clone of a Blob copies no bytes). On WebGPU the
   * weights then stream in chunks into GPU buffers without entering wasm
   * memory. Bytes travel in the load request and pass through wasm memory.
   *
   * A failed load leaves the loaded model as it was when the failure came
   * before the new model's weights were placed (network, HTTP, a file that
   * is not a usable GGUF model, an unsupported architecture, an abort
   * while downloading): the engine checks the file before it frees the
   * old model. A failure while placing the weights (out of memory, GPU,
   * an abort during the upload) leaves no model loaded.
   */
  load(source, opts = {}) {
    const { signal } = opts;
    const progress = progressFn(opts.onProgress);
    return this.enqueue(signal, async () => {
      const ctx = opts.contextSize ?? 0;
      if (!Number.isInteger(ctx) || ctx < 0) throw new WebGGUFError('invalid-argument', 'contextSize must be a non-negative integer');
      const backend = opts.backend ?? this.backend;
      if (!BACKENDS.has(backend)) throw new WebGGUFError('invalid-argument', `backend must be 'auto', 'webgpu' or 'cpu'`);
      const src = await this.resolveSource(source, opts, progress);
      const send = (fields) => this.loadFrom(fields, src, { nCtx: ctx, backend }, signal, progress);
      let info;
      try {
        try {
          info = await send(src.fields);
        } catch (err) {
          // A server without Range support (a 200 or no Content-Range, not
          // an HTTP error status) cannot serve the worker's URL source:
          // fetch the whole file here instead.
          if (!src.fields.url || !(err instanceof WebGGUFError) || err.status || !err.cause || /** @type {any} */ (err.cause).kind !== 'opfs.http') throw err;
          if (this.logger) log(this.logger, 4, `loading ${src.fields.url} through the page (${err.message})`);
          info = await send({ data: await fetchBytes(src.fields.url, { signal, onProgress: (l, t) => progress('download', l, t) }) });
        }
      } catch (err) {
        // A cache entry of this URL that this engine cannot load (written
        // before downloads were checked) must not fail every later load:
        // drop it, so that the next load downloads the file again.
        if (src.cachedURL && err instanceof WebGGUFError && (err.code === 'bad-file' || err.code === 'unsupported-model')) await this.cache.delete(src.cachedURL).catch(() => {});
        await this.syncModel();
        throw err;
      }
      this.model = modelInfo(info);
      return this.model;
    });
  }

  /**
   * After a failed load: this.model is kept when the engine still has the
   * model (the failure came before it was freed), else cleared.
   */
  async syncModel() {
    try {
      const m = await this.call('InfoRequest', {});
      if (!m.loaded) this.model = null;
    } catch {
      this.model = null;
    }
  }

  /** Sends one ModelLoadRequest; a Blob source is posted to the worker first and forgotten after. */
  async loadFrom(fields, src, rest, signal, progress) {
    let blobID = '';
    if (src.blobs && !fields.data) {
      blobID = `load-${++blobSeq}`;
      this.client.postBlobs(blobID, src.blobs);
    }
    try {
      return await this.call('ModelLoadRequest', { ...fields, ...(blobID ? { blobID } : {}), name: src.name, ...rest }, signal, (ev, msg) => {
        if (ev === 'Progress') progress('upload', Number(msg.done), Number(msg.total));
        else if (ev === 'Log' && this.logger) log(this.logger, msg.level, msg.message);
      });
    } catch (err) {
      throw WebGGUFError.from(err);
    } finally {
      if (blobID && this.client.state !== 'crashed' && this.client.state !== 'closed') this.client.postBlobs(blobID, []);
    }
  }

  /**
   * Turns a load() source into the request's fields ({ data }, { key },
   * { url }, { shardURLs }) or Blobs to post ({ blobs }), with a name. A split
   * model's shards come as the URL of its first shard (the others derived),
   * a list of URLs, or a list of Files.
   */
  async resolveSource(source, opts, progress) {
    if (source instanceof Uint8Array || source instanceof ArrayBuffer) {
      return { fields: { data: source instanceof ArrayBuffer ? new Uint8Array(source) : source }, name: opts.name || 'bytes' };
    }
    if (typeof Blob !== 'undefined' && source instanceof Blob) {
      return { fields: {}, blobs: [source], name: /** @type {File} */ (source).name || opts.name || 'blob' };
    }
    if (Array.isArray(source)) {
      if (source.length === 1) return this.resolveSource(source[0], opts, progress);
      if (source.length > 1 && source.every((s) => typeof Blob !== 'undefined' && s instanceof Blob)) {
        const blobs = orderShards(source);
        return { fields: {}, blobs, name: /** @type {File} */ (blobs[0]).name || opts.name || 'blob' };
      }
      if (source.length > 1 && source.every((s) => typeof s === 'string' && (s.includes('/') || s.includes(':')))) {
        return this.resolveURLs(source.map((s) => absoluteURL(s)), opts, progress);
      }
      throw new WebGGUFError('invalid-argument', 'load(list): the shards of a split model, as a list of URLs or of Files (not mixed, not empty)');
    }
    if (source && typeof source === 'object' && typeof source.id === 'string') return this.cached(source.id);
    if (typeof source !== 'string' || !source) throw new WebGGUFError('invalid-argument', 'load(source): source must be a URL, a cached model id, a File/Blob or bytes');
    if (!source.includes('/') && !source.includes(':')) return this.cached(source); // a cache id
    return this.resolveURLs(shardURLs(absoluteURL(source)), opts, progress);
  }

  /**
   * The fields that load a model from urls (one file, or a split model's
   * shards in order): its cache entry, downloaded into the cache first
   * unless cache: false; else the URLs themselves.
   */
  async resolveURLs(urls, opts, progress) {
    const { signal } = opts;
    const source = urls[0];
    const cache = opts.cache ?? true;
    if (cache) {
      const id = await idFor(source).catch(() => null);
      if (id && (await this.cachedURL(id, source).catch(() => false))) return { ...(await this.cached(id)), cachedURL: id };
      if (id) {
        try {
          await this.cache.download(urls.length === 1 ? urls[0] : urls, { id, signal, onProgress: (l, t) => progress('download', l, t) });
          return { ...(await this.cached(id)), cachedURL: id };
        } catch (err) {
          // No storage (private window, quota): load without caching.
          if (!(err instanceof WebGGUFError) || (err.code !== 'storage-unavailable' && err.code !== 'quota')) throw err;
          if (this.logger) log(this.logger, 4, `model not cached: ${err.message}`);
        }
      }
    }
    const url = new URL(source);
    const name = decodeURIComponent(url.pathname.split('/').pop() || 'model');
    return { fields: urls.length > 1 ? { shardURLs: urls } : { url: url.href }, name };
  }

  /**
   * Whether the cache holds url under id: an entry of that id counts only
   * if it records the same absolute URL, so that an entry written for
   * another URL (a forged one whose id collides, or an older id rule's) is
   * downloaded over rather than loaded.
   */
  async cachedURL(id, url) {
    const entry = await this.cache.get(id);
    return !!entry && entry.url === absoluteURL(url);
  }

  /** The fields that load cached model id: its key, read by the worker from its cache. */
  async cached(id) {
    const entry = await this.cache.get(id);
    if (!entry) throw new WebGGUFError('not-found', `No cached model "${id}": download it first.`);
    return { fields: { key: id }, name: entry.name || id };
  }

  /** Tokenizes text (addSpecial: BOS as the model asks; parseSpecial: special tokens in text). */
  tokenize(text, opts = {}) {
    return this.enqueue(opts.signal, async () => {
      const r = await this.call('TokenizeRequest', { text: String(text), addSpecial: opts.addSpecial ?? true, parseSpecial: opts.parseSpecial ?? true }, opts.signal);
      return Array.from(r.ids);
    });
  }

  /** Turns token ids back into text (special: render control tokens). */
  detokenize(ids, opts = {}) {
    return this.enqueue(opts.signal, async () => {
      const r = await this.call('DetokenizeRequest', { ids: Int32Array.from(ids), special: !!opts.special }, opts.signal);
      return r.text;
    });
  }

  /** Renders messages with the model's chat template (or opts.template). */
  applyChatTemplate(messages, opts = {}) {
    return this.enqueue(opts.signal, async () => {
      const { roles, contents } = splitMessages(messages);
      const r = await this.call('ChatTemplateRequest', { roles, contents, addGenerationPrompt: opts.addGenerationPrompt ?? true, template: opts.template || '' }, opts.signal);
      return r.text;
    });
  }

  /** engine.embeddings.create: OpenAI-shaped, L2-normalized unless normalize: false. */
  createEmbeddings(req) {
    let parsed;
    try {
      parsed = embedRequest(req);
    } catch (err) {
      return Promise.reject(err);
    }
    return this.enqueue(req.signal, async () => {
      const r = await this.call('EmbedRequest', parsed.fields, req.signal);
      return embedResponse(r, parsed, this.model ? this.model.name : '');
    });
  }

  /** engine.rerank: scores documents against a query with a reranker. */
  createRerank(req) {
    let parsed;
    try {
      parsed = rerankRequest(req);
    } catch (err) {
      return Promise.reject(err);
    }
    return this.enqueue(req.signal, async () => {
      const r = await this.call('RerankRequest', parsed.fields, req.signal);
      return rerankResponse(r, parsed, this.model ? this.model.name : '');
    });
  }

  /** engine.chat.completions.create */
  createChat(req) {
    if (!req || typeof req !== 'object') return Promise.reject(new WebGGUFError('invalid-argument', 'create(request): request must be an object'));
    let fields;
    try {
      fields = { ...chatFields(req), ...sampling(req) };
    } catch (err) {
      return Promise.reject(err);
    }
    return this.generate(req, fields, 'chatcmpl', 'chat.completion');
  }

  /** engine.completions.create */
  createCompletion(req) {
    if (!req || typeof req !== 'object') return Promise.reject(new WebGGUFError('invalid-argument', 'create(request): request must be an object'));
    let fields;
    try {
      if (typeof req.prompt !== 'string') throw new WebGGUFError('invalid-argument', 'prompt must be a string');
      fields = { prompt: req.prompt, ...sampling(req) };
    } catch (err) {
      return Promise.reject(err);
    }
    return this.generate(req, fields, 'cmpl', 'text_completion');
  }

  generate(req, fields, prefix, object) {
    const chat = object === 'chat.completion';
    const id = responseId(prefix);
    const created = Math.floor(Date.now() / 1000);
    const base = () => ({ id, object: chat ? 'chat.completion.chunk' : 'text_completion', created, model: this.model ? this.model.name : '' });
    if (!req.stream) {
      return this.enqueue(req.signal, async () => {
        const t0 = performance.now();
        let ttft = 0;
        const r = await this.call('GenerateRequest', fields, req.signal, (ev, msg) => {
          if (ev === 'TokenEvent' && !ttft) ttft = performance.now() - t0;
          else if (ev === 'Log' && this.logger) log(this.logger, msg.level, msg.message);
        });
        const { usage, timings } = usageOf(r, ttft);
        const choice = chat
          ? { index: 0, message: { role: 'assistant', content: r.text }, finish_reason: r.finish, logprobs: null }
          : { index: 0, text: r.text, finish_reason: r.finish, logprobs: null };
        const calls = chat ? toolCallsOf(r) : null;
        if (calls && choice.message) {
          // As OpenAI: a turn that only calls tools has null content.
          choice.message.tool_calls = calls;
          if (!r.text) choice.message.content = null;
        }
        if (req.return_tokens) choice.tokens = Array.from(r.ids);
        return { id, object, created, model: this.model ? this.model.name : '', choices: [choice], usage, timings };
      });
    }
    // Streaming: the call starts when its turn comes; chunks are pulled by
    // the consumer's for await. Leaving the loop aborts the call.
    const ac = new AbortController();
    const onAbort = () => ac.abort(req.signal.reason);
    if (req.signal) {
      if (req.signal.aborted) ac.abort(req.signal.reason);
      else req.signal.addEventListener('abort', onAbort, { once: true });
    }
    const q = new ChunkQueue(() => ac.abort(new DOMException('The stream was closed by its consumer.', 'AbortError')));
    const done = this.enqueue(ac.signal, async () => {
      const t0 = performance.now();
      let ttft = 0;
      let first = true;
      // Output that may hold tool calls is parsed only once it is whole:
      // its text is held back and sent, split into content and tool_calls
      // deltas, when generation ends.
      const holdBack = chat && fields.tools && fields.toolChoice !== 'none';
      const r = await this.call('GenerateRequest', fields, ac.signal, (ev, msg) => {
        if (ev === 'Log' && this.logger) log(this.logger, msg.level, msg.message);
        if (ev !== 'TokenEvent') return;
        if (!ttft) ttft = performance.now() - t0;
        if (holdBack) return;
        if (!msg.text && !(req.return_tokens && msg.id >= 0)) return;
        const c = base();
        c.choices = [chat ? { index: 0, delta: first ? { role: 'assistant', content: msg.text } : { content: msg.text }, finish_reason: null, logprobs: null } : { index: 0, text: msg.text, finish_reason: null, logprobs: null }];
        if (req.return_tokens) c.choices[0].tokens = msg.id >= 0 ? [msg.id] : [];
        first = false;
        q.push(c);
      });
      const { usage, timings } = usageOf(r, ttft);
      if (holdBack) {
        const calls = toolCallsOf(r);
        if (r.text || calls) {
          const delta = { role: 'assistant', content: r.text || (calls ? null : '') };
          if (calls) delta.tool_calls = calls.map((tc, index) => ({ index, ...tc }));
          const h = base();
          h.choices = [{ index: 0, delta, finish_reason: null, logprobs: null }];
          if (req.return_tokens) h.choices[0].tokens = Array.from(r.ids);
          q.push(h);
          first = false;
        }
      }
      const c = base();
      c.choices = [chat ? { index: 0, delta: first ? { role: 'assistant', content: '' } : {}, finish_reason: r.finish, logprobs: null } : { index: 0, text: '', finish_reason: r.finish, logprobs: null }];
      if (req.return_tokens) c.choices[0].tokens = [];
      c.usage = usage;
      c.timings = timings;
      q.push(c);
    });
    done.then(() => q.end(), (err) => q.end(err)).finally(() => { if (req.signal) req.signal.removeEventListener('abort', onAbort); });
    const stream = q.iterator();
    stream.controller = ac;
    return Promise.resolve(stream);
  }

  /** Adapter, features and limits of WebGPU (if any), the engine, and the loaded model. */
  async info() {
    const gpu = await gpuInfo();
    const m = await this.enqueue(undefined, () => this.call('InfoRequest', {}));
    return { engine: { name: this.hello ? this.hello.engine : '', protocol: this.hello ? this.hello.protocol : 0, backend: this.backend }, gpu, model: m.loaded ? modelInfo(m) : null };
  }

  /** Frees the loaded model; resolves to whether one was loaded. */
  unload() {
    return this.enqueue(undefined, async () => {
      const r = await this.call('UnloadRequest', {});
      this.model = null;
      return r.existed;
    });
  }

  /** Stops the engine's worker; every pending call rejects with code 'crashed'. */
  terminate() {
    this.model = null;
    this.client.terminate();
  }
}

/** ChunkQueue hands pushed chunks to an async iterator. */
class ChunkQueue {
  constructor(onReturn) {
    this.items = [];
    this.waiters = [];
    this.closed = false;
    this.err = null;
    this.onReturn = onReturn;
  }

  push(c) {
    const w = this.waiters.shift();
    if (w) w.resolve({ value: c, done: false });
    else this.items.push(c);
  }

  end(err) {
    if (this.closed) return;
    this.closed = true;
    this.err = err ? WebGGUFError.from(err) : null;
    for (const w of this.waiters.splice(0)) {
      if (this.err) w.reject(this.err);
      else w.resolve({ value: undefined, done: true });
    }
  }

  iterator() {
    const q = this;
    let returned = false;
    return {
      next() {
        if (q.items.length) return Promise.resolve({ value: q.items.shift(), done: false });
        if (q.closed || returned) return q.err && !returned ? Promise.reject(q.err) : Promise.resolve({ value: undefined, done: true });
        return new Promise((resolve, reject) => q.waiters.push({ resolve, reject }));
      },
      return() {
        if (!returned && !q.closed) q.onReturn();
        returned = true;
        q.items.length = 0;
        return Promise.resolve({ value: undefined, done: true });
      },
      [Symbol.asyncIterator]() { return this; },
    };
  }
}

function progressFn(fn, fixedStage) {
  if (typeof fn !== 'function') return () => {};
  return (stage, loaded, total) => {
    if (fixedStage) { total = loaded; loaded = stage; stage = fixedStage; } // download(l, t) form
    // total and fraction are undefined when the size is unknown (a
    // download without Content-Length): an indeterminate progress bar.
    if (!(total >= 0)) total = undefined;
    try {
      fn({ stage, loaded, total, fraction: total === undefined ? undefined : total > 0 ? Math.min(1, loaded / total) : 1 });
    } catch (err) {
      queueMicrotask(() => { throw err; });
    }
  };
}

function log(logger, level, message) {
  const fn = typeof logger === 'function' ? logger : level >= 8 ? logger.error : level >= 4 ? logger.warn : level >= 0 ? logger.info : logger.debug;
  try {
    if (typeof logger === 'function') logger(level, message);
    else if (fn) fn.call(logger, `webgguf: ${message}`);
  } catch { /* a logger must not break the engine */ }
}

/**
 * @param {any} m a ModelInfo message
 * @returns {import('./index.js').ModelInfo}
 */
function modelInfo(m) {
  /** @type {Record<string, unknown>} */
  let metadata = {};
  try { metadata = JSON.parse(m.metadata || '{}'); } catch { /* engine sent bad JSON: leave empty */ }
  return {
    name: m.name, arch: m.arch, backend: m.backend, contextSize: m.nCtx, trainContextSize: m.nCtxTrain,
    vocabSize: m.nVocab, layers: m.nLayer, embeddingSize: m.nEmbd, fileBytes: Number(m.fileBytes),
    backendBytes: Number(m.backendBytes), chatTemplate: m.chatTemplate || null, templateWarning: m.templateWarning || null,
    loadMs: m.loadMs, bos: m.bos, eos: m.eos, metadata,
    source: m.source || '', wasmBytes: Number(m.wasmBytes || 0), wasmGrowth: Number(m.wasmGrowth || 0),
  };
}

/** @returns {Promise<import('./index.js').EngineInfo['gpu']>} */
async function gpuInfo() {
  const gpu = globalThis.navigator && /** @type {any} */ (navigator).gpu;
  if (!gpu) return { available: false, reason: 'navigator.gpu is missing (WebGPU not supported or disabled)' };
  let adapter;
  try {
    adapter = await gpu.requestAdapter();
  } catch (err) {
    return { available: false, reason: String(err && err.message) };
  }
  if (!adapter) return { available: false, reason: 'no WebGPU adapter' };
  const ai = adapter.info || {};
  /** @type {Record<string, number>} */
  const limits = {};
  for (const k of ['maxBufferSize', 'maxStorageBufferBindingSize', 'maxComputeWorkgroupSizeX', 'maxComputeInvocationsPerWorkgroup', 'maxComputeWorkgroupStorageSize', 'maxStorageBuffersPerShaderStage']) limits[k] = adapter.limits[k];
  return { available: true, vendor: ai.vendor || '', architecture: ai.architecture || '', device: ai.device || '', description: ai.description || '', features: [...adapter.features].sort(), limits };
}


// withOptions passes create()'s second argument on as the OpenAI SDK's
// RequestOptions: its signal joins the request (the request's own signal
// field works too, but not both).
// oneOrAll is a one-URL list's URL, else the list (the cache's download argument).
function oneOrAll(urls) { return urls.length === 1 ? urls[0] : urls; }

function withOptions(req, opts, create) {
  if (opts == null || opts.signal === undefined) return create(req);
  if (typeof opts !== 'object') return Promise.reject(new WebGGUFError('invalid-argument', 'create(request, options): options must be an object'));
  if (req && typeof req === 'object' && req.signal !== undefined && req.signal !== opts.signal) {
    return Promise.reject(new WebGGUFError('invalid-argument', 'create(request, options): a signal in both the request and the options'));
  }
  return create(req && typeof req === 'object' ? { ...req, signal: opts.signal } : req);
}
