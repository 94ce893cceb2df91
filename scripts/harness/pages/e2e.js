// Browser e2e tests of the GLUE protocol and the engine worker, run in real
// headless Chromium by scripts/harness/e2e_test.go against the e2e build of
// the test engine (engine-test.wasm, go build -tags webgguf_test ./wasm: the
// test messages' handlers added).
import { GlueClient, GlueCallError, GlueCrashedError, encodeFrameBytes, MessageType } from '/jsbindings/src/protocol.js';
import { newEngine, assert, runTests } from './common.js';

// pattern is a deterministic, non-trivial byte pattern (never all zeros).
function pattern(n, seed) {
  const b = new Uint8Array(n);
  let x = seed * 2654435761 + 1;
  for (let i = 0; i < n; i++) {
    x = (x ^ (x << 13)) >>> 0; x = (x ^ (x >>> 17)) >>> 0; x = (x ^ (x << 5)) >>> 0;
    b[i] = x & 255;
  }
  return b;
}

function sameBytes(a, b, what) {
  assert(a.length === b.length, `${what}: length ${a.length}, want ${b.length}`);
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) throw new Error(`${what}: byte ${i} is ${a[i]}, want ${b[i]}`);
}

const engine = newEngine(); // calls made right away go through the bootstrap's queue

async function waitStats(pred, what) {
  for (let i = 0; i < 1000; i++) { // up to ~10 s on a loaded machine
    const s = await engine.call('StatsRequest', {});
    if (pred(s)) return s;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error('stats never satisfied: ' + what);
}

const tests = [
  ['calls made before the engine is ready are queued and answered', async () => {
    const e = newEngine();
    const rs = await Promise.all([1, 2, 3, 4, 5].map((i) => e.call('EchoRequest', { data: pattern(i, i), text: 'q' + i })));
    rs.forEach((r, i) => { assert(r.text === 'q' + (i + 1), 'order/text'); sameBytes(r.data, pattern(i + 1, i + 1), 'queued echo'); });
    e.terminate();
  }],

  ['hello reports the protocol version and handlers', async () => {
    await engine.ready;
    const h = await engine.call('HelloRequest', {});
    assert(h.protocol === 1, 'protocol ' + h.protocol);
    assert(h.engine === 'webgguf', 'engine ' + h.engine);
    for (const t of [MessageType.EchoRequest, MessageType.StreamRequest, MessageType.CrashRequest]) assert(h.requests.includes(t), 'handler for ' + t);
  }],

  ['echo 1 B, 64 KiB and 8 MiB with exact content', async () => {
    for (const [n, seed] of [[1, 1], [64 << 10, 2], [8 << 20, 3]]) {
      const data = pattern(n, seed);
      const r = await engine.call('EchoRequest', { data, text: `n=${n}` });
      assert(r.text === `n=${n}`, 'text');
      sameBytes(r.data, data, `echo ${n}`);
      engine.release(r);
    }
    // the released 8 MiB response buffer (transferred back from the worker)
    // carries the next 8 MiB request instead of a new allocation
    const hits = engine.pool.hits;
    const r = await engine.call('EchoRequest', { data: pattern(8 << 20, 4) });
    assert(engine.pool.hits === hits + 1, `pool hits ${engine.pool.hits}, want ${hits + 1}`);
    sameBytes(r.data, pattern(8 << 20, 4), 'echo from a reused buffer');
  }],

  ['100 concurrent requests each get their own answer', async () => {
    const calls = [];
    for (let i = 0; i < 100; i++) {
      const data = pattern(1 + (i * 37) % 3000, 100 + i);
      calls.push(engine.call('EchoRequest', { data, text: 'c' + i, delayMs: (i * 7) % 20 }).then((r) => ({ r, data, i })));
    }
    const all = await Promise.all(calls);
    for (const { r, data, i } of all) { assert(r.text === 'c' + i, `call ${i} got ${r.text}`); sameBytes(r.data, data, `call ${i}`); }
  }],

  ['stream delivers events in order, then the response', async () => {
    const s = engine.stream('StreamRequest', { count: 20, chunkBytes: 33 });
    let seq = 0;
    for await (const ev of s) {
      assert(ev.name === 'StreamChunk' && ev.msg.seq === seq, `event ${seq}: ${ev.name} ${ev.msg.seq}`);
      for (let i = 0; i < 33; i++) assert(ev.msg.data[i] === ((seq + i) & 255), 'chunk content');
      seq++;
    }
    assert(seq === 20, 'events ' + seq);
    assert((await s.result).sent === 20, 'result');
  }],

  ['cancel mid-stream stops the Go handler', async () => {
    const before = await engine.call('StatsRequest', {});
    const ac = new AbortController();
    const s = engine.stream('StreamRequest', { count: 100000, intervalMs: 5, chunkBytes: 8 }, { signal: ac.signal });
    let n = 0, err;
    try {
      for await (const ev of s) { assert(ev.msg.seq === n, 'seq'); if (++n === 3) ac.abort(); }
    } catch (e) { err = e; }
    assert(err && err.name === 'AbortError', 'want AbortError, got ' + err);
    assert(n === 3, 'events after abort: ' + n);
    const st = await waitStats((s) => s.inFlight === 0 && s.canceled >= before.canceled + 1n, 'handler canceled');
    assert(st.canceled === before.canceled + 1n, 'canceled count ' + st.canceled);
  }],

  ['aborting a call rejects it and cancels its handler', async () => {
    const before = await engine.call('StatsRequest', {});
    const ac = new AbortController();
    const p = engine.call('EchoRequest', { data: pattern(3, 3), delayMs: 60000 }, { signal: ac.signal });
    setTimeout(() => ac.abort(), 20);
    let err;
    try { await p; } catch (e) { err = e; }
    assert(err && err.name === 'AbortError', 'want AbortError, got ' + err);
    await waitStats((s) => s.inFlight === 0 && s.canceled === before.canceled + 1n, 'echo handler canceled');
  }],

  ['typed errors cross the boundary with kind, message and cause', async () => {
    let err;
    try { await engine.call('CrashRequest', { mode: 'bogus' }); } catch (e) { err = e; }
    assert(err instanceof GlueCallError, 'GlueCallError: ' + err);
    assert(err.kind === 'bad_request', 'kind ' + err.kind);
    assert(err.message === 'unknown crash mode', 'message ' + err.message);
    assert(err.cause && err.cause.message === 'mode "bogus" is not panic, exit or throw', 'cause ' + (err.cause && err.cause.message));
    assert(err.cause.kind === 'internal', 'cause kind ' + err.cause.kind);
  }],

  ['malformed frames from the page give typed errors; the worker stays alive', async () => {
    const before = await engine.call('StatsRequest', {});
    const protoErrs = [];
    const off = engine.on('protocolError', (e) => protoErrs.push(e));
    await engine.injectFrame(new TextEncoder().encode('this is not a GLUE frame').buffer);
    // a sound header for call 4242 with a bytes field whose length overruns the frame
    const bad = encodeFrameBytes(1, 4242, 'EchoRequest', { data: new Uint8Array([1, 2, 3]) });
    new DataView(bad.buffer).setUint32(24, 1 << 30, true);
    let err;
    try { await engine.injectFrame(bad.buffer, 4242); } catch (e) { err = e; }
    assert(err instanceof GlueCallError, 'GlueCallError: ' + err);
    assert(err.kind === 'decode.truncated', 'kind ' + err.kind);
    assert(err.message.includes('EchoRequest.Data at byte 24'), 'message ' + err.message);
    for (let i = 0; i < 1000 && !protoErrs.length; i++) await new Promise((r) => setTimeout(r, 10));
    off();
    assert(protoErrs.length === 1 && protoErrs[0].kind === 'decode.bad_magic', 'protocol error ' + protoErrs.map(String));
    const r = await engine.call('EchoRequest', { data: pattern(10, 9), text: 'alive' });
    assert(r.text === 'alive', 'alive');
    const st = await engine.call('StatsRequest', {});
    assert(st.rejected === before.rejected + 2n, 'rejected ' + st.rejected);
  }],

  ...['panic', 'exit', 'throw'].map((mode) => [`engine crash (${mode}) rejects pending calls; restart recovers`, async () => {
    const e = newEngine();
    await e.ready;
    const crashes = [];
    e.on('crash', (err) => crashes.push(err));
    const pending = [1, 2, 3].map((i) => e.call('EchoRequest', { data: pattern(5, i), delayMs: 60000 }));
    const crash = e.call('CrashRequest', { mode });
    const results = await Promise.allSettled([...pending, crash]);
    for (const r of results) {
      assert(r.status === 'rejected' && r.reason instanceof GlueCrashedError, `${mode}: want GlueCrashedError, got ${r.status} ${r.reason}`);
    }
    const want = { panic: /exited with code 2/, exit: /exited with code 3/, throw: /worker error/ }[mode];
    assert(want.test(results[0].reason.message), `${mode}: message ${results[0].reason.message}`);
    assert(crashes.length === 1, 'crash events ' + crashes.length);
    let after;
    try { await e.call('EchoRequest', {}); } catch (err) { after = err; }
    assert(after instanceof GlueCrashedError, 'calls after a crash reject at once');
    await e.restart();
    const r = await e.call('EchoRequest', { data: pattern(7, 7), text: 'restarted' });
    assert(r.text === 'restarted', 'restart');
    e.terminate();
  }]),

  ['default asset URLs find the npm layout (dist/ beside src/): the release engine, without test handlers', async () => {
    const e = new GlueClient();
    const h = await e.call('HelloRequest', {});
    assert(h.protocol === 1 && h.requests.includes(MessageType.ModelLoadRequest), 'hello through dist/: ' + Array.from(h.requests));
    for (const t of [MessageType.EchoRequest, MessageType.StreamRequest, MessageType.CrashRequest, MessageType.StatsRequest, MessageType.OpfsLoadRequest]) {
      assert(!h.requests.includes(t), `the release engine serves test message ${t}`);
    }
    let err;
    try { await e.call('EchoRequest', { text: 'dist' }); } catch (x) { err = x; }
    assert(err instanceof GlueCallError && String(err.kind).includes('unknown_type'), 'echo to the release engine: ' + (err && err.kind) + ' ' + err);
    e.terminate();
  }],

  ['the strict CSP is in force: a blob: worker is refused, ours runs', async () => {
    const url = URL.createObjectURL(new Blob(['postMessage(1)'], { type: 'text/javascript' }));
    const refused = await new Promise((resolve) => {
      try {
        const w = new Worker(url);
        w.onerror = () => resolve(true);
        w.onmessage = () => resolve(false);
        setTimeout(() => resolve('no answer'), 5000);
      } catch (e) {
        resolve(e.name === 'SecurityError');
      }
    });
    assert(refused === true, 'blob: worker was not refused: ' + refused);
    const h = await engine.call('HelloRequest', {});
    assert(h.protocol === 1, 'engine under CSP');
  }],

  ['an engine that cannot load rejects ready and its calls with a clear error', async () => {
    const e = new GlueClient({ workerURL: '/worker/worker.js', wasmURL: '/build/missing.wasm', execURL: '/build/wasm_exec.js' });
    const call = e.call('EchoRequest', {});
    let err;
    try { await e.ready; } catch (x) { err = x; }
    assert(err instanceof GlueCrashedError, 'ready: ' + err);
    assert(/failed to start/.test(err.message) && /missing\.wasm/.test(err.message) && /404/.test(err.message), 'message: ' + err.message);
    let cerr;
    try { await call; } catch (x) { cerr = x; }
    assert(cerr instanceof GlueCrashedError, 'queued call: ' + cerr);
    e.terminate();
  }],

  ['the page has a WebGPU adapter (SwiftShader flags work)', async () => {
    assert(navigator.gpu, 'navigator.gpu missing');
    const a = await navigator.gpu.requestAdapter();
    assert(a, 'no adapter');
  }],
];

globalThis.harnessDone = runTests(tests);
