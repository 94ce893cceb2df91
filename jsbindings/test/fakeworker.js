// FakeWorker stands in for the engine worker in Node: it speaks GLUE through
// the same codec, transfers buffers like postMessage does (the sender's copy
// is detached), and can be told to crash. Its engine serves EchoRequest
// (Text "fail" → error with cause), StreamRequest, HelloRequest and a
// one-token GenerateRequest that logs a debug line first (a tool call
// when the request has tools).
import { decodeFrame, encodeFrame } from '../src/codec.js';
import { Kind } from '../src/wire.js';
import { MessageType } from '../src/glue.gen.js';
import { BufferPool } from '../src/pool.js';
import './glue-test.gen.js'; // the test messages it serves (echo, stream)

export class FakeWorker {
  static instances = [];

  constructor(url, opts) {
    this.url = url;
    this.opts = opts;
    this.received = []; // decoded frames, in order
    this.terminated = false;
    this.readyDelay = FakeWorker.readyDelay ?? 5;
    this.ready = false;
    this.backlog = [];
    this.streams = new Map();
    this.pool = new BufferPool(); // like worker.js: incoming buffers carry outgoing frames
    FakeWorker.instances.push(this);
  }

  postMessage(data, transfer) {
    if (this.terminated) return;
    if (transfer) data = structuredClone(data, { transfer }); // detaches the sender's buffer
    setTimeout(() => this.receive(data), 0);
  }

  receive(d) {
    if (this.terminated) return;
    if (!(d instanceof ArrayBuffer)) {
      if (d.t === 'webgguf.blobs') (this.order ||= []).push(`blobs ${d.id} ${d.blobs.length}`);
      if (d.t === 'init') { this.init = d; setTimeout(() => { this.ready = true; this.toPage({ t: 'ready' }); this.backlog.splice(0).forEach((b) => this.frame(b)); }, this.readyDelay); }
      return;
    }
    if (!this.ready) this.backlog.push(d); // the bootstrap's queue
    else this.frame(d);
  }

  frame(buf) {
    let f;
    try { f = decodeFrame(buf); } catch (e) {
      this.send(Kind.Error, 0, 'Error', { kind: e.kind, message: e.message });
      return;
    }
    this.received.push(f);
    (this.order ||= []).push(`frame ${f.name}`);
    this.handle(f);
    this.pool.give(buf); // replies were encoded synchronously; the buffer is free
  }

  handle(f) {
    if (f.kind === Kind.Cancel) {
      const s = this.streams.get(f.id);
      if (s) { clearInterval(s); this.streams.delete(f.id); this.canceled = (this.canceled || 0) + 1; }
      return;
    }
    if (f.name === 'EchoRequest') {
      if (f.msg.text === 'fail') this.send(Kind.Error, f.id, 'Error', { kind: 'not_found', message: 'no model', cause: 'open: ENOENT', causeKind: 'internal' });
      else if (f.msg.text !== 'hang') this.send(Kind.Response, f.id, 'EchoResponse', { data: f.msg.data, text: f.msg.text });
    } else if (f.name === 'HelloRequest') {
      // createEngine wants the model cache (OpfsListRequest) served.
      this.send(Kind.Response, f.id, 'HelloResponse', { protocol: 1, engine: 'fake', requests: new Uint32Array([MessageType.OpfsListRequest]) });
    } else if (f.name === 'GenerateRequest') {
      // One token, with a debug log line of the worker before the token
      // (as the engine's profile is logged before its response).
      this.send(Kind.Event, f.id, 'Log', { level: -4, message: 'profile of the last decode step (fake)' });
      if (f.msg.tools) {
        // A request with tools: the worker's answer to a forced call, as
        // enginehost parses it (calls in toolCalls, the content around them).
        const calls = [{ id: 'call00000', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }];
        this.send(Kind.Event, f.id, 'TokenEvent', { id: 7, text: '<tool_call>{"name": "get_weather", "arguments": {"city": "Paris"}}</tool_call>' });
        this.send(Kind.Response, f.id, 'GenerateResponse', { text: '', ids: new Int32Array([7]), finish: 'tool_calls', promptTokens: 2, completionTokens: 1, cachedTokens: 0, promptMs: 1, genMs: 1, toolCalls: JSON.stringify(calls) });
        return;
      }
      this.send(Kind.Event, f.id, 'TokenEvent', { id: 7, text: 'x' });
      this.send(Kind.Response, f.id, 'GenerateResponse', { text: 'x', ids: new Int32Array([7]), finish: 'length', promptTokens: 2, completionTokens: 1, cachedTokens: 0, promptMs: 1, genMs: 1 });
    } else if (f.name === 'StreamRequest') {
      let seq = 0;
      const t = setInterval(() => {
        if (seq === f.msg.count) { clearInterval(t); this.streams.delete(f.id); this.send(Kind.Response, f.id, 'StreamDone', { sent: seq }); return; }
        this.send(Kind.Event, f.id, 'StreamChunk', { seq: seq++, data: new Uint8Array([seq]) });
      }, 1);
      this.streams.set(f.id, t);
    }
  }

  send(kind, id, type, msg) {
    const { buffer } = encodeFrame(kind, id, type, msg, this.pool);
    this.toPage(structuredClone(buffer, { transfer: [buffer] }));
  }

  toPage(data) {
    setTimeout(() => { if (!this.terminated && this.onmessage) this.onmessage({ data }); }, 0);
  }

  crashWithError(message) { this.onerror({ message, preventDefault() {} }); }

  terminate() {
    this.terminated = true;
    for (const t of this.streams.values()) clearInterval(t);
  }
}
