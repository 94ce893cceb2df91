// Browser e2e tests of the OPFS model cache and the GPU loader, run in
// headless Chromium by scripts/harness/opfs_e2e_test.go. The test server
// serves model files under /models/FLAGS/NAME with injected faults (see
// harness.ModelServer) and control endpoints under /__ctl/: info (files,
// sizes, SHA-256 computed by the Go test from the files on disk), log (the
// requests it saw), quota (CDP Storage.overrideQuotaForOrigin) and stop.
// Expected bytes are always the server's files: contents are checked by
// reading OPFS directly from the page (not through the engine) and hashing
// with crypto.subtle.
import { GlueCallError } from '/jsbindings/src/protocol.js';
import { newEngine, assert, runTests } from './common.js';

const info = await (await fetch('/__ctl/info')).json();
const bench = new URLSearchParams(location.search).has('bench');
const engine = newEngine();
const MiB = 1 << 20;

async function ctlLog() {
  return (await fetch('/__ctl/log')).json();
}

function hex(buf) {
  return [...new Uint8Array(buf)].map((b) => b.toString(16).padStart(2, '0')).join('');
}

// entryFile reads a committed shard straight from OPFS (page side).
async function entryFile(key, shard) {
  const root = await navigator.storage.getDirectory();
  const dir = await (await (await root.getDirectoryHandle('webgguf')).getDirectoryHandle('models')).getDirectoryHandle(key);
  return (await dir.getFileHandle(String(shard).padStart(5, '0') + '.gguf')).getFile();
}

async function sha256(blob) {
  return hex(await crypto.subtle.digest('SHA-256', await blob.arrayBuffer()));
}

async function exists(...path) {
  let d = await navigator.storage.getDirectory();
  try {
    for (const p of path) d = await d.getDirectoryHandle(p);
    return true;
  } catch (e) {
    if (e.name === 'NotFoundError') return false;
    throw e;
  }
}

async function download(urls, opts = {}) {
  const events = [];
  const r = await engine.call('OpfsDownloadRequest', { shardURLs: urls, key: opts.key || '', sha256: opts.sha256 || [], parallel: opts.parallel || 0 },
    { signal: opts.signal, onEvent: (name, msg) => { if (name === 'OpfsProgress') { events.push({ ...msg }); if (opts.onProgress) opts.onProgress(msg); } } });
  return { r, events };
}

async function keys() {
  return (await engine.call('OpfsListRequest', {})).keys;
}

async function expectError(p, kind) {
  try {
    await p;
  } catch (e) {
    assert(e instanceof GlueCallError, 'GlueCallError: ' + e);
    assert(e.kind === kind, `error kind ${e.kind}, want ${kind}: ${e.message}`);
    return e;
  }
  throw new Error('no error, want ' + kind);
}

const A = info.files.a; // a 16 MiB GGUF fixture
const url = (flags, f) => `/models/${flags}/${f.name}`;
const results = {};

const tests = [
  ['clear, estimate and persist', async () => {
    await engine.call('OpfsClearRequest', {});
    await expectError(engine.call('OpfsEstimateRequest', { persist: true }), 'opfs.unsupported'); // persist() is page-only
    const granted = await navigator.storage.persist();
    const e = await engine.call('OpfsEstimateRequest', {});
    assert(e.persisted === granted, `worker sees persisted ${e.persisted}, page was told ${granted}`);
    assert(Number(e.quota) > 0, 'quota ' + e.quota);
    assert((await keys()).length === 0, 'cache not empty after clear');
    await ctlLog();
  }],

  ['download with progress, metadata and byte-identical content', async () => {
    const { r, events } = await download([url('-', A)], { key: 'a', sha256: [A.sha256] });
    assert(r.key === 'a' && Number(r.size) === A.size, `response ${r.key} ${r.size}`);
    assert(events.length >= 1, 'no progress events');
    const last = events.filter((e) => e.stage === 'download').pop();
    assert(Number(last.done) === A.size && Number(last.total) === A.size && Number(last.allTotal) === A.size, `last progress ${last.done}/${last.total}`);
    assert(last.bytesPerSec > 0, 'rate ' + last.bytesPerSec);
    assert(events.some((e) => e.stage === 'verify'), 'no verify progress');
    const l = await engine.call('OpfsListRequest', {});
    const i = l.keys.indexOf('a');
    assert(i >= 0 && Number(l.sizes[i]) === A.size, 'list ' + l.keys);
    const meta = JSON.parse(l.metas[i]);
    assert(meta.urls[0] === url('-', A) || meta.urls[0].endsWith(url('-', A)), 'meta url ' + meta.urls[0]);
    assert(meta.etags[0] !== '' && meta.sha256[0] === A.sha256 && meta.created, 'meta ' + l.metas[i]);
    assert(await sha256(await entryFile('a', 0)) === A.sha256, 'cached bytes differ');
    const log = await ctlLog();
    assert(log.length === 1 && log[0].range === '', 'requests ' + JSON.stringify(log));
  }],

  ['connection dropped mid-way: resumed with a validated Range, byte-identical', async () => {
    const drop = 5000000;
    const { r } = await download([url(`drop=${drop}`, A)], { key: 'drop' });
    assert(r.resumed === 1 && r.restarted === 0, `resumed ${r.resumed} restarted ${r.restarted}`);
    const log = await ctlLog();
    assert(log.length === 2 && log[0].dropped, 'requests ' + JSON.stringify(log));
    // The browser may have received fewer bytes than the server wrote before the drop.
    const m = /^bytes=(\d+)-$/.exec(log[1].range);
    const from = m ? Number(m[1]) : -1;
    assert(from > 0 && from <= log[0].sent && log[1].ifRange.startsWith('"'), 'resume request ' + JSON.stringify(log[1]));
    assert(log[1].sent === A.size - from && Number(r.fetched) === A.size, `fetched ${r.fetched}, resumed body ${log[1].sent} from ${from}`);
    assert(await sha256(await entryFile('drop', 0)) === A.sha256, 'resumed bytes differ');
  }],

  ['retries run out: typed network error, partial kept, the next call resumes it', async () => {
    const u = url('drop=2500000,drops=5', A); // the browser may lose the last bytes before a drop: at least some arrive
    await expectError(download([u], { key: 'later' }), 'opfs.network');
    assert(!(await keys()).includes('later'), 'failed download listed');
    assert(await exists('webgguf', 'partial', 'later'), 'partial files gone');
    let log = await ctlLog();
    assert(log.length === 5 && log.every((r) => r.dropped) && log.slice(1).some((r) => r.range.startsWith('bytes=')), 'requests ' + JSON.stringify(log));
    const { r } = await download([u], { key: 'later' });
    assert(r.resumed === 1 && r.restarted === 0 && Number(r.fetched) < A.size, `resumed ${r.resumed} restarted ${r.restarted} fetched ${r.fetched}`);
    log = await ctlLog();
    assert(log.length === 1 && log[0].range.startsWith('bytes=') && !log[0].dropped, 'resume ' + JSON.stringify(log));
    assert(await sha256(await entryFile('later', 0)) === A.sha256, 'bytes differ');
    assert(!(await exists('webgguf', 'partial', 'later')), 'partial left after commit');
  }],

  ['server without Range support: clean restart, byte-identical', async () => {
    const { r } = await download([url('norange,drop=3000000', A)], { key: 'norange' });
    assert(r.resumed === 0 && r.restarted === 1, `resumed ${r.resumed} restarted ${r.restarted}`);
    const log = await ctlLog();
    assert(log.length === 2 && log[1].range !== '' && log[1].sent === A.size, 'requests ' + JSON.stringify(log));
    assert(await sha256(await entryFile('norange', 0)) === A.sha256, 'restarted bytes differ');
  }],

  ['server without validators: partial thrown away, not resumed', async () => {
    const { r } = await download([url('noval,drop=3000000', A)], { key: 'noval' });
    assert(r.resumed === 0 && r.restarted === 1, `resumed ${r.resumed} restarted ${r.restarted}`);
    const log = await ctlLog();
    assert(log.length === 2 && log[1].range === '', 'a Range request without a validator: ' + JSON.stringify(log));
    assert(await sha256(await entryFile('noval', 0)) === A.sha256, 'bytes differ');
  }],

  ['abort: no cache entry, no partial files', async () => {
    const ac = new AbortController();
    const p = download([url('slow=3', A)], { key: 'aborted', signal: ac.signal, onProgress: (m) => { if (Number(m.done) > 0) ac.abort(); } });
    let err;
    try { await p; } catch (e) { err = e; }
    assert(err && err.name === 'AbortError', 'want AbortError, got ' + err);
    for (let i = 0; i < 100 && await exists('webgguf', 'partial', 'aborted'); i++) await new Promise((r) => setTimeout(r, 50));
    assert(!(await keys()).includes('aborted'), 'aborted download listed');
    assert(!(await exists('webgguf', 'partial', 'aborted')), 'partial files left');
    assert(!(await exists('webgguf', 'models', 'aborted')), 'entry folder left');
    await ctlLog();
  }],

  ['a second download of the same key while one runs: typed busy error, the first completes', async () => {
    let started;
    const began = new Promise((r) => { started = r; });
    const first = download([url('slow=2', A)], { key: 'dup', onProgress: () => started() });
    await began;
    await expectError(download([url('-', A)], { key: 'dup' }), 'opfs.busy');
    await first;
    assert(await sha256(await entryFile('dup', 0)) === A.sha256, 'bytes differ');
    await engine.call('OpfsDeleteRequest', { key: 'dup' });
    await ctlLog();
  }],

  ['SHA-256 mismatch: typed integrity error, no entry', async () => {
    const bad = A.sha256.replace(/^./, (c) => (c === '0' ? '1' : '0'));
    await expectError(download([url('-', A)], { key: 'badhash', sha256: [bad] }), 'opfs.integrity');
    assert(!(await keys()).includes('badhash'), 'listed');
    assert(!(await exists('webgguf', 'partial', 'badhash')), 'partial left');
    await ctlLog();
  }],

  ['quota exhausted: typed quota error, no partial entry', async () => {
    const before = Number((await engine.call('OpfsEstimateRequest', {})).usage);
    const q = await (await fetch(`/__ctl/quota?bytes=${before + 4 * MiB}`)).text();
    assert(q === 'ok', 'quota override: ' + q);
    try {
      await expectError(download([url('-', A)], { key: 'quota' }), 'opfs.quota');
    } finally {
      await fetch('/__ctl/quota?bytes=-1');
    }
    assert(!(await keys()).includes('quota'), 'listed');
    assert(!(await exists('webgguf', 'partial', 'quota')), 'partial left');
    const after = Number((await engine.call('OpfsEstimateRequest', {})).usage);
    assert(after < before + MiB, `usage grew from ${before} to ${after}`);
    await ctlLog();
  }],

  ['split model: shards fetched in parallel with a bound, per-shard progress', async () => {
    const fs = [info.files.s0, info.files.s1, info.files.s2];
    const { r, events } = await download(fs.map((f) => url('slow=1', f)), { key: 'split', sha256: fs.map((f) => f.sha256), parallel: 2 });
    assert(Number(r.size) === fs.reduce((s, f) => s + f.size, 0), 'size ' + r.size);
    const shards = new Set(events.map((e) => e.shard));
    assert(shards.size === 3 && events.every((e) => e.shards === 3), 'shards in events ' + [...shards]);
    for (let i = 0; i < 3; i++) assert(await sha256(await entryFile('split', i)) === fs[i].sha256, 'shard ' + i);
    const log = await ctlLog();
    assert(log.length === 3, 'requests ' + log.length);
    results.splitMaxAllTotal = Math.max(...events.map((e) => Number(e.allTotal)));
  }],

  ['delete removes one entry', async () => {
    const d = await engine.call('OpfsDeleteRequest', { key: 'noval' });
    assert(d.existed, 'existed');
    assert(!(await keys()).includes('noval'), 'still listed');
    assert(!(await engine.call('OpfsDeleteRequest', { key: 'noval' })).existed, 'second delete');
    await expectError(engine.call('OpfsDeleteRequest', { key: '../x' }), 'opfs.invalid');
  }],

  ...['cache', 'blob', 'url'].map((source) => [`load to the GPU from ${source}: bytes read back from the GPU match the file`, async () => {
    const req = source === 'url' ? { shardURLs: [url('-', A)] } : { key: 'a', source };
    const events = [];
    const r = await engine.call('OpfsLoadRequest', { ...req, verify: info.verify },
      { onEvent: (n, m) => events.push({ ...m }) });
    assert(r.tensors > 0 && r.gpuBuffers > 0 && Number(r.bytes) > 0, `loaded ${r.tensors} tensors ${r.bytes} B`);
    const last = events.pop();
    assert(last && last.stage === 'load' && last.done === last.total && Number(last.done) === Number(r.bytes), 'load progress');
    const file = await entryFile('a', 0);
    const slice = file.slice(Number(r.verifyOffset), Number(r.verifyOffset) + Number(r.verifySize));
    assert(Number(r.verifySize) > 0 && r.verifySHA256 === await sha256(slice), `GPU bytes of ${info.verify} differ`);
    results['load-' + source] = { ms: r.ms, bytes: Number(r.bytes), wasmGrowth: Number(r.wasmGrowth) };
    await ctlLog();
  }]),

  ['TensorStream feeds a backend the right bytes (12 KiB chunks)', async () => {
    const r = await engine.call('OpfsLoadRequest', { key: 'a', source: 'stream', verify: info.verify, chunkBytes: 12288 });
    const slice = (await entryFile('a', 0)).slice(Number(r.verifyOffset), Number(r.verifyOffset) + Number(r.verifySize));
    assert(Number(r.verifySize) > 12288 && r.verifySHA256 === await sha256(slice), 'streamed GPU bytes differ');
  }],

  ['load from a URL whose server ignores Range: typed http error', async () => {
    const e = await expectError(engine.call('OpfsLoadRequest', { shardURLs: [url('norange', A)] }), 'opfs.http');
    assert(/Range/.test(e.message), e.message);
    await ctlLog();
  }],

  ['load to the GPU from a File the page picked and posted to the worker', async () => {
    await engine.ready;
    const file = new File([await (await fetch(url('-', A))).blob()], A.name);
    engine.worker.postMessage({ t: 'webgguf.blobs', id: 'picked', blobs: [file] });
    const r = await engine.call('OpfsLoadRequest', { blobID: 'picked', verify: info.verify });
    const slice = file.slice(Number(r.verifyOffset), Number(r.verifyOffset) + Number(r.verifySize));
    assert(r.tensors > 0 && Number(r.verifySize) > 0 && r.verifySHA256 === await sha256(slice), 'GPU bytes differ from the File');
    engine.worker.postMessage({ t: 'webgguf.blobs', id: 'picked', blobs: [] });
    await expectError(engine.call('OpfsLoadRequest', { blobID: 'picked' }), 'opfs.not_found');
    await ctlLog();
  }],

  ['download the generated model', async () => {
    const G = info.files.gen;
    const t0 = performance.now();
    const { r } = await download([url('-', G)], { key: 'gen' });
    results.download = { size: G.size, ms: performance.now() - t0, mbps: G.size / (performance.now() - t0) / 1e3 };
    assert(Number(r.size) === G.size, 'size');
    await ctlLog();
  }],

  ['cancel a load mid-way, then load the generated model: wasm memory bound', async () => {
    const ac = new AbortController();
    const p = engine.call('OpfsLoadRequest', { key: 'gen' }, { signal: ac.signal, onEvent: (n, m) => { if (Number(m.done) > 8 * MiB) ac.abort(); } });
    let err;
    try { await p; } catch (e) { err = e; }
    assert(err && err.name === 'AbortError', 'want AbortError, got ' + err);
    // The worker has no performance.memory: sample the page's JS heap
    // during the load (the worker reports its own when the browser has it).
    let pageHeapPeak = 0;
    const sample = () => { if (performance.memory) pageHeapPeak = Math.max(pageHeapPeak, performance.memory.usedJSHeapSize); };
    const timer = setInterval(sample, 20);
    sample();
    const r = await engine.call('OpfsLoadRequest', { key: 'gen', verify: 'blk.0.attn_q.weight' }).finally(() => clearInterval(timer));
    const file = await entryFile('gen', 0);
    const slice = file.slice(Number(r.verifyOffset), Number(r.verifyOffset) + Number(r.verifySize));
    assert(Number(r.verifySize) > 0 && r.verifySHA256 === await sha256(slice), 'GPU bytes of blk.0.attn_q.weight differ');
    assert(r.liveBefore === 0, `${r.liveBefore} GPU buffers of the cancelled load were not freed`);
    results.gen = { pageHeapPeak, size: info.files.gen.size, bytes: Number(r.bytes), ms: r.ms, gbps: Number(r.bytes) / r.ms / 1e6, wasmGrowth: Number(r.wasmGrowth), wasmBytes: Number(r.wasmBytes), jsHeapPeak: Number(r.jsHeapPeak) };
    assert(Number(r.wasmGrowth) <= 32 * MiB, `wasm memory grew ${r.wasmGrowth} B loading ${r.bytes} B`);
    await ctlLog();
  }],

  ['load() → first token of a cached model matches llama.cpp', async () => {
    const r = await engine.call('OpfsFirstTokenRequest', { key: 'a', prompt: info.prompt });
    assert(r.token === info.greedy, `greedy token ${r.token}, llama.cpp ${info.greedy}`);
    results.firstToken = { promptTokens: info.prompt.length, openMs: r.openMs, loadMs: r.loadMs, firstMs: r.firstMs, backend: r.backend, wasmGrowth: Number(r.wasmGrowth) };
  }],

  ['server stopped: the cached model still loads, with no network request', async () => {
    await ctlLog();
    await engine.call('OpfsLoadRequest', { key: 'a' });
    const log = await ctlLog();
    assert(log.length === 0, 'a cached load made requests: ' + JSON.stringify(log));
    assert(await (await fetch('/__ctl/stop')).text() === 'ok', 'stop');
    await new Promise((r) => setTimeout(r, 200));
    let down = false;
    try { await fetch(url('-', A)); } catch { down = true; }
    assert(down, 'server still answers');
    const r = await engine.call('OpfsLoadRequest', { key: 'a', verify: info.verify });
    assert(r.tensors > 0, 'offline load');
    assert((await keys()).includes('a'), 'list offline');
  }],
];

globalThis.harnessDone = runTests(bench ? tests.filter(([n]) => n.startsWith('clear') || n.startsWith('download with progress') || n.includes('generated model') || n.includes('first token')) : tests).then((rep) => ({ ...rep, results }));
