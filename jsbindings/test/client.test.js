import { test } from 'node:test';
import assert from 'node:assert/strict';
import { GlueClient, GlueCallError, GlueCrashedError } from '../src/protocol.js';
import { encodeFrameBytes } from '../src/codec.js';
import { FakeWorker } from './fakeworker.js';

// until polls pred every few ms, for up to 5 s: the fake worker is asynchronous.
async function until(pred, what) {
  for (let i = 0; i < 1000; i++) {
    if (pred()) return;
    await new Promise((r) => setTimeout(r, 5));
  }
  assert.fail('timed out waiting for ' + what);
}

function engine() {
  return new GlueClient({ Worker: FakeWorker, workerURL: '/worker.js', wasmURL: '/e.wasm', execURL: '/exec.js' });
}

test('spawns a module worker from a URL and sends init with the asset URLs', async () => {
  const e = engine();
  const w = FakeWorker.instances.at(-1);
  assert.equal(w.url, '/worker.js');
  assert.equal(w.opts.type, 'module');
  await e.ready;
  assert.deepEqual([w.init.wasm, w.init.exec], ['/e.wasm', '/exec.js']);
  e.terminate();
});

test('init names the WebGPU runtime: dist/ by default, beside execURL when only that is given, or gpuURL', async () => {
  const cases = [
    [{}, (g) => g.endsWith('/dist/webgpu-runtime.js')],
    [{ execURL: '/exec.js' }, (g) => g === undefined], // the worker looks beside wasm_exec.js
    [{ execURL: '/exec.js', gpuURL: '/rt.js' }, (g) => g === '/rt.js'],
  ];
  for (const [opts, ok] of cases) {
    const e = new GlueClient({ Worker: FakeWorker, ...opts });
    const w = FakeWorker.instances.at(-1);
    await e.ready;
    assert.ok(ok(w.init.gpu), `${JSON.stringify(opts)}: gpu ${w.init.gpu}`);
    e.terminate();
  }
});

test('postBlobs reaches the worker before a request sent after it', async () => {
  const e = engine();
  const w = FakeWorker.instances.at(-1);
  await e.ready;
  e.postBlobs('pick', [new Blob([new Uint8Array(8)])]);
  await e.call('EchoRequest', { text: 'x' });
  e.postBlobs('pick', []);
  await until(() => w.order.length === 3, 'three messages');
  assert.deepEqual(w.order, ['blobs pick 1', 'frame EchoRequest', 'blobs pick 0']);
  e.terminate();
  assert.throws(() => e.postBlobs('pick', []), GlueCrashedError);
});

test('calls made before the engine is ready are queued, not lost', async () => {
  FakeWorker.readyDelay = 30;
  const e = engine();
  FakeWorker.readyDelay = undefined;
  const data = new Uint8Array(1000).map((_, i) => (i * 7 + 1) & 255);
  const rs = await Promise.all([1, 2, 3].map((i) => e.call('EchoRequest', { data, text: 't' + i })));
  assert.deepEqual(rs.map((r) => r.text), ['t1', 't2', 't3']);
  for (const r of rs) assert.deepEqual(r.data, data);
  e.terminate();
});

test('released response buffers are reused for the next request', async () => {
  const e = engine();
  const r = await e.call('EchoRequest', { data: new Uint8Array(100000).fill(3) });
  const misses = e.pool.misses;
  e.release(r);
  await e.call('EchoRequest', { data: new Uint8Array(100000).fill(4) });
  assert.equal(e.pool.misses, misses, 'the second request allocated a new buffer');
  assert.ok(e.pool.hits >= 1);
  e.terminate();
});

test('engine errors arrive typed, with kind and cause', async () => {
  const e = engine();
  await assert.rejects(e.call('EchoRequest', { text: 'fail' }), (err) => {
    assert.ok(err instanceof GlueCallError);
    assert.equal(err.kind, 'not_found');
    assert.equal(err.message, 'no model');
    assert.equal(err.cause.message, 'open: ENOENT');
    assert.equal(err.cause.kind, 'internal');
    return true;
  });
  e.terminate();
});

test('stream yields events in order and resolves its result', async () => {
  const e = engine();
  const s = e.stream('StreamRequest', { count: 5 });
  const seqs = [];
  for await (const ev of s) {
    assert.equal(ev.name, 'StreamChunk');
    seqs.push(ev.msg.seq);
  }
  assert.deepEqual(seqs, [0, 1, 2, 3, 4]);
  assert.equal((await s.result).sent, 5);
  e.terminate();
});

test('aborting a stream rejects it and sends a Cancel frame', async () => {
  const e = engine();
  const ac = new AbortController();
  const s = e.stream('StreamRequest', { count: 100000 }, { signal: ac.signal });
  let n = 0;
  await assert.rejects((async () => {
    for await (const _ of s) if (++n === 3) ac.abort();
  })(), { name: 'AbortError' });
  await assert.rejects(s.result, { name: 'AbortError' });
  const w = FakeWorker.instances.at(-1);
  await until(() => w.canceled === 1, 'the Cancel frame');
  assert.equal(w.received.at(-1).name, 'Cancel');
  assert.equal(w.received.at(-1).id, s.id);
  e.terminate();
});

test('breaking out of a stream cancels it', async () => {
  const e = engine();
  const s = e.stream('StreamRequest', { count: 100000 });
  for await (const ev of s) if (ev.msg.seq === 2) break;
  await until(() => FakeWorker.instances.at(-1).canceled === 1, 'the Cancel frame');
  e.terminate();
});

test('an already aborted signal rejects without sending', async () => {
  const e = engine();
  const ac = new AbortController();
  ac.abort(new Error('nope'));
  await assert.rejects(e.call('EchoRequest', {}, { signal: ac.signal }), /nope/);
  e.terminate();
});

test('a worker error rejects every pending call; restart brings the engine back', async () => {
  const e = engine();
  await e.ready;
  const crashes = [];
  e.on('crash', (err) => crashes.push(err));
  const pending = [1, 2, 3].map(() => e.call('EchoRequest', { text: 'hang' }));
  FakeWorker.instances.at(-1).crashWithError('boom');
  for (const p of pending) await assert.rejects(p, (err) => err instanceof GlueCrashedError && /boom/.test(err.message));
  assert.equal(crashes.length, 1);
  assert.ok(FakeWorker.instances.at(-1).terminated);
  await assert.rejects(e.call('EchoRequest', {}), GlueCrashedError);
  await e.restart();
  assert.equal((await e.call('EchoRequest', { text: 'back' })).text, 'back');
  e.terminate();
});

test('Go exiting counts as a crash', async () => {
  const e = engine();
  await e.ready;
  const p = e.call('EchoRequest', { text: 'hang' });
  FakeWorker.instances.at(-1).toPage({ t: 'exit', code: 2 });
  await assert.rejects(p, /exited with code 2/);
  e.terminate();
});

test('a malformed frame injected from the page is answered with a protocol error', async () => {
  const e = engine();
  const errs = [];
  e.on('protocolError', (err) => errs.push(err));
  await e.injectFrame(new TextEncoder().encode('garbage that is not a frame').buffer);
  await until(() => errs.length === 1, 'the protocol error');
  assert.equal(errs[0].kind, 'decode.bad_magic');
  assert.equal((await e.call('EchoRequest', { text: 'alive' })).text, 'alive');
  e.terminate();
});

test('frames for unknown ids and undecodable frames from the worker are dropped', async () => {
  const e = engine();
  await e.ready;
  const errs = [];
  e.on('protocolError', (err) => errs.push(err));
  const w = FakeWorker.instances.at(-1);
  w.toPage(encodeFrameBytes(2, 999, 'EchoResponse', {}).buffer);
  w.toPage(new ArrayBuffer(5));
  await until(() => errs.length === 1, 'the protocol error');
  await new Promise((r) => setTimeout(r, 20)); // and no second one
  assert.equal(errs[0].code, 'truncated');
  e.terminate();
});

test('engine-wide events (id 0) reach on("event") listeners', async () => {
  const e = engine();
  await e.ready;
  const evs = [];
  e.on('event', (ev) => evs.push(ev));
  FakeWorker.instances.at(-1).send(3, 0, 'Log', { level: 4, message: 'model loaded' });
  await until(() => evs.length === 1, 'the event');
  assert.equal(evs[0].name, 'Log');
  assert.deepEqual(evs[0].msg, { level: 4, message: 'model loaded' });
  e.terminate();
});

test('log lines the worker sends during a completion reach the logger, streamed or not', async () => {
  const { createEngine } = await import('../src/api.js');
  const lines = [];
  const e = await createEngine({ Worker: FakeWorker, logger: (level, msg) => lines.push([level, msg]) });
  const r = await e.completions.create({ prompt: 'hi', max_tokens: 1, temperature: 0 });
  assert.equal(r.choices[0].text, 'x');
  const chunks = [];
  for await (const c of await e.completions.create({ prompt: 'hi', max_tokens: 1, temperature: 0, stream: true })) chunks.push(c);
  assert.ok(chunks.some((c) => c.choices[0].text === 'x'), 'the streamed token');
  assert.deepEqual(lines, [[-4, 'profile of the last decode step (fake)'], [-4, 'profile of the last decode step (fake)']]);
  e.terminate();
});

test('create() takes the signal as its second argument, as the OpenAI SDK does', async () => {
  const { createEngine } = await import('../src/api.js');
  const e = await createEngine({ Worker: FakeWorker, logger: () => {} });
  const req = { prompt: 'hi', max_tokens: 1, temperature: 0 };
  await assert.rejects(e.completions.create(req, { signal: AbortSignal.abort() }), (err) => err.name === 'AbortError' || err.code === 'aborted');
  await assert.rejects(e.chat.completions.create({ messages: [{ role: 'user', content: 'hi' }], max_tokens: 1 }, { signal: AbortSignal.abort() }),
    (err) => err.name === 'AbortError' || err.code === 'aborted');
  await assert.rejects(e.completions.create({ ...req, signal: new AbortController().signal }, { signal: new AbortController().signal }),
    (err) => err.code === 'invalid-argument');
  const r = await e.completions.create(req, { signal: new AbortController().signal });
  assert.equal(r.choices[0].text, 'x');
  e.terminate();
});

test('tool calls: message.tool_calls, delta.tool_calls and finish_reason tool_calls', async () => {
  const { createEngine } = await import('../src/api.js');
  const e = await createEngine({ Worker: FakeWorker, logger: () => {} });
  const tools = [{ type: 'function', function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } } }];
  const req = { messages: [{ role: 'user', content: 'Weather?' }], tools, tool_choice: 'required', max_tokens: 50, temperature: 0 };
  const r = await e.chat.completions.create(req);
  const want = [{ id: 'call00000', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }];
  assert.equal(r.choices[0].finish_reason, 'tool_calls');
  assert.equal(r.choices[0].message.content, null);
  assert.deepEqual(r.choices[0].message.tool_calls, want);
  const sent = FakeWorker.instances.at(-1).received.filter((f) => f.name === 'GenerateRequest').at(-1).msg;
  assert.equal(sent.toolChoice, 'required');
  assert.deepEqual(JSON.parse(sent.tools), tools);
  const chunks = [];
  for await (const c of await e.chat.completions.create({ ...req, stream: true })) chunks.push(c);
  // The call markup never arrives as content; the call arrives whole.
  assert.ok(!chunks.some((c) => typeof c.choices[0].delta.content === 'string' && c.choices[0].delta.content.includes('tool_call')), JSON.stringify(chunks));
  const deltas = chunks.flatMap((c) => c.choices[0].delta.tool_calls ?? []);
  assert.deepEqual(deltas, [{ index: 0, ...want[0] }]);
  assert.equal(chunks.at(-1).choices[0].finish_reason, 'tool_calls');
  // The call and its result go back as the next turn's messages.
  const next = { messages: [req.messages[0], r.choices[0].message, { role: 'tool', tool_call_id: 'call00000', content: '{"temp":21}' }], tools, tool_choice: 'none', max_tokens: 5, temperature: 0 };
  await e.chat.completions.create(next);
  const msgs = JSON.parse(FakeWorker.instances.at(-1).received.filter((f) => f.name === 'GenerateRequest').at(-1).msg.messages);
  assert.deepEqual(msgs[1], { role: 'assistant', content: '', tool_calls: want });
  assert.deepEqual(msgs[2], { role: 'tool', content: '{"temp":21}', tool_call_id: 'call00000' });
  e.terminate();
});
