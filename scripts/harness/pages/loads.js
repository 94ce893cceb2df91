// Browser e2e test of loads and the model cache (issue 27), run in headless
// Chromium with the release engine by scripts/harness/loads_e2e_test.go:
// a downloaded file that is not a usable model is not cached and the model
// loaded before stays usable; the same URL loads once the server is fixed;
// HTTP errors carry status; progress without Content-Length has an unknown
// total; a model on another origin without CORS fails once, saying so; a
// split GGUF model (tiny-llama-q8_0 in three shards) loads from its first
// shard's URL, a URL list, the cache and Files with llama.cpp's greedy ids,
// and a truncated shard caches nothing.
import { createEngine, WebGGUFError, ModelCache } from '/jsbindings/src/index.js';
import { assert, runTests } from './common.js';

const info = await (await fetch('/__loads/info')).json();
const ref = await (await fetch('/testdata/ref/tiny-llama-q8_0.ref.json')).json();
const GOOD = '/files/ok/tiny-llama-q8_0.gguf';
const FLIP = '/files/flip/model.gguf';
const greedy = { temperature: 0, ignore_eos: true, return_tokens: true };
const results = {};
const logs = [];
// The CPU backend: these tests are about loads, and 'auto' would pass
// SwiftShader over anyway.
const engine = await createEngine({ assetBaseURL: '/build/', backend: 'cpu', logger: (l, m) => logs.push(`${l} ${m}`) });

function same(a, b, what) {
  assert(a.length === b.length && a.every((v, i) => v === b[i]), `${what}: ${JSON.stringify(a)} != ${JSON.stringify(b)}`);
}

// generates checks that the loaded model is the good one and that it
// generates llama.cpp's greedy ids.
async function generates(what) {
  assert(engine.model && engine.model.fileBytes === info.size, `${what}: engine.model ${JSON.stringify(engine.model && engine.model.name)}`);
  const m = (await engine.info()).model;
  assert(m && m.fileBytes === info.size, `${what}: the engine has no model loaded`);
  const p = ref.prompts[0];
  const want = p.greedy.slice(0, 6);
  const c = await engine.completions.create({ prompt: p.prompt, max_tokens: want.length, ...greedy });
  same(c.choices[0].tokens, want, `${what}: greedy ids (llama.cpp)`);
}

async function expectError(p, code) {
  try {
    await p;
  } catch (e) {
    assert(e instanceof WebGGUFError, 'WebGGUFError: ' + e);
    assert(e.code === code, `error code ${e.code}, want ${code}: ${e.message}`);
    return e;
  }
  throw new Error('no error, want ' + code);
}

async function serve(variant) {
  const r = await fetch('/__loads/serve?variant=' + variant);
  assert(r.ok, 'serve ' + variant);
}

async function cached(url) {
  const id = await engine.models.idFor(url);
  return (await engine.models.list()).some((e) => e.id === id);
}

async function requests() {
  return (await fetch('/__loads/log')).json();
}

// Split shards of tiny-llama-q8_0 (loads_e2e_test.go writes them):
// SPLIT[i] is shard i+1; BAD is the same split with shard 2 truncated.
const SPLIT = [1, 2, 3].map((i) => `/files/ok/tiny-split-0000${i}-of-00003.gguf`);
const BAD = [1, 2, 3].map((i) => `/files/ok/bad-split-0000${i}-of-00003.gguf`);
const splitBytes = info.splitSizes.reduce((a, b) => a + b, 0);

// generatesSplit checks that the split model is loaded (all its shards'
// bytes) and that it generates llama.cpp's greedy ids of the unsplit file.
async function generatesSplit(what) {
  assert(engine.model && engine.model.fileBytes === splitBytes, `${what}: engine.model fileBytes ${engine.model && engine.model.fileBytes}, want ${splitBytes}`);
  for (const p of ref.prompts.slice(0, 2)) {
    const want = p.greedy.slice(0, 8);
    const c = await engine.completions.create({ prompt: p.prompt, max_tokens: want.length, ...greedy });
    same(c.choices[0].tokens, want, `${what}: greedy ids (llama.cpp, unsplit file)`);
  }
}

const splitTests = [
  ['split GGUF from its first shard URL: one cache entry of 3 shards, progress over all shards, llama.cpp greedy ids', async () => {
    const events = [];
    await requests();
    const m = await engine.load(SPLIT[0], { contextSize: 128, onProgress: (p) => events.push(p) });
    assert(m.source === 'cache', 'source ' + m.source);
    const log = await requests();
    for (const u of SPLIT) assert(log.includes(u), `shard ${u} was not downloaded: ${log}`);
    const dl = events.filter((e) => e.stage === 'download');
    assert(dl.length > 0 && dl[dl.length - 1].loaded === splitBytes && dl[dl.length - 1].total === splitBytes, `download progress ${JSON.stringify(dl.slice(-1))}, want ${splitBytes} of ${splitBytes}`);
    const up = events.filter((e) => e.stage === 'upload');
    assert(up.length > 0 && up[up.length - 1].fraction === 1, 'upload ' + JSON.stringify(up.slice(-1)));
    const id = await engine.models.idFor(SPLIT[0]);
    const entry = (await engine.models.list()).find((e) => e.id === id);
    assert(entry && entry.shards === 3 && entry.size === splitBytes, 'entry ' + JSON.stringify(entry));
    assert(await engine.models.has(SPLIT[0]), 'models.has(first shard)');
    for (const u of SPLIT.slice(1)) assert((await engine.models.has(u)) === false, 'models.has(later shard) ' + u);
    await generatesSplit('first shard URL');
    results.splitDownloadEvents = dl.length;
  }],

  ['split GGUF from an explicit URL list (cache: false), the cache and Files', async () => {
    const m = await engine.load(SPLIT, { contextSize: 128, cache: false });
    assert(m.source === 'url', 'URL list source ' + m.source);
    await generatesSplit('URL list, uncached');
    const id = await engine.models.idFor(SPLIT[0]);
    assert((await engine.load({ id }, { contextSize: 128 })).source === 'cache', 'load({ id })');
    await generatesSplit('cache id');
    const files = await new ModelCache().files(id);
    assert(files.length === 3 && files.reduce((a, f) => a + f.size, 0) === splitBytes, 'ModelCache.files: ' + files.map((f) => f.size));
    assert((await engine.load(files, { contextSize: 128 })).source === 'blob', 'load(files)');
    await generatesSplit('cached Files');
    // Files picked by a user, in any order: their names give the order.
    const picked = [];
    for (const u of [...SPLIT].reverse()) picked.push(new File([await (await fetch(u)).blob()], u.split('/').pop()));
    assert((await engine.load(picked, { contextSize: 128 })).source === 'blob', 'load(picked files)');
    await generatesSplit('picked Files');
    await expectError(new ModelCache().open(id), 'invalid-argument');
    await expectError(engine.load(SPLIT[1], { contextSize: 128 }), 'invalid-argument');
  }],

  ['a split model with a truncated shard: bad-file naming the shard, nothing cached, the loaded model stays', async () => {
    await engine.load(GOOD, { contextSize: 128 });
    const e = await expectError(engine.load(BAD[0], { contextSize: 128 }), 'bad-file');
    assert(e.message.includes('not cached') && e.message.includes('shard 2 of 3'), 'message: ' + e.message);
    assert(!(await cached(BAD[0])), 'the bad split was cached');
    assert(!(await engine.models.has(BAD[0])), 'models.has(bad split)');
    await generates('after the truncated shard');
    const e2 = await expectError(engine.load(BAD, { contextSize: 128, cache: false }), 'bad-file');
    assert(e2.message.includes('shard 2 of 3'), 'uncached message: ' + e2.message);
    await generates('after the uncached truncated shard');
    results.badShard = e.message;
  }],
];

const tests = [
  ['load(url) of a good model: cached, greedy ids equal llama.cpp', async () => {
    await engine.models.clear();
    await engine.load(GOOD, { contextSize: 128 });
    assert(await cached(GOOD), 'not cached');
    await generates('first load');
  }],

  ['bad files (truncated, HTML page with 200, random bytes, unsupported architecture) are not cached; the loaded model stays and generates', async () => {
    for (const [variant, code] of [['truncated', 'bad-file'], ['html', 'bad-file'], ['random', 'bad-file'], ['unsupported', 'unsupported-model']]) {
      await serve(variant);
      const e = await expectError(engine.load(FLIP, { contextSize: 128 }), code);
      assert(e.message.includes('not cached'), `${variant}: message ${e.message}`);
      assert(!(await cached(FLIP)), `${variant}: the file was cached`);
      assert(!(await engine.models.has(FLIP)), `${variant}: models.has`);
      await generates(`after the ${variant} load`);
      results[variant] = e.message;
    }
    // The same bad file through models.download: refused alike.
    await expectError(engine.models.download(FLIP), 'unsupported-model');
    assert(!(await cached(FLIP)), 'models.download cached an unsupported model');
  }],

  ['the same URL loads once the server serves the real file', async () => {
    await serve('truncated');
    await expectError(engine.load(FLIP, { contextSize: 128 }), 'bad-file');
    await serve('good');
    await requests();
    const m = await engine.load(FLIP, { contextSize: 128 });
    assert(m.fileBytes === info.size, 'fileBytes ' + m.fileBytes);
    assert((await requests()).includes(FLIP), 'the load did not download the file again');
    assert(await cached(FLIP), 'the good file was not cached');
    await generates('after the fixed load');
    await requests();
    await engine.load(FLIP, { contextSize: 128 });
    assert(!(await requests()).includes(FLIP), 'a cached load downloaded the file again');
  }],

  ['a bad entry already in the cache (written before downloads were checked) is dropped by its failed load; the next load downloads the file', async () => {
    const url = '/files/flip/legacy.gguf';
    const id = await engine.models.idFor(url);
    const bytes = new TextEncoder().encode('<!doctype html><h1>an error page cached by an older version</h1>');
    const models = await (await (await navigator.storage.getDirectory()).getDirectoryHandle('webgguf', { create: true })).getDirectoryHandle('models', { create: true });
    const dir = await models.getDirectoryHandle(id, { create: true });
    const write = async (name, data) => { const w = await (await dir.getFileHandle(name, { create: true })).createWritable(); await w.write(data); await w.close(); };
    await write('00000.gguf', bytes);
    await write('meta.json', JSON.stringify({ version: 1, key: id, urls: [new URL(url, location.href).href], sizes: [bytes.length], etags: [''], lastModified: [''], created: new Date().toISOString() }));
    assert(await cached(url), 'the planted entry is not listed');
    await serve('good');
    await requests();
    await expectError(engine.load(url, { contextSize: 128 }), 'bad-file');
    assert(!(await requests()).includes(url), 'the failed load did not come from the cache');
    assert(!(await cached(url)), 'the bad entry is still cached');
    await generates('after the bad cached entry');
    const m = await engine.load(url, { contextSize: 128 });
    assert(m.fileBytes === info.size && (await requests()).includes(url) && (await cached(url)), 'the next load did not download and cache the file');
    await generates('after the re-download');
  }],

  ['bad File and bytes loads keep the loaded model', async () => {
    await expectError(engine.load(new File([new TextEncoder().encode('<!doctype html><h1>oops</h1>')], 'page.gguf')), 'bad-file');
    await generates('after a bad File');
    await expectError(engine.load(new Uint8Array(4096).fill(7)), 'bad-file');
    await generates('after bad bytes');
  }],

  ['HTTP errors carry status: 404 through the cache, without it, and models.download', async () => {
    const missing = '/files/ok/missing.gguf';
    for (const [what, call] of [['load', () => engine.load(missing)], ['load cache: false', () => engine.load(missing, { cache: false })], ['models.download', () => engine.models.download(missing)]]) {
      const e = await expectError(call(), 'network');
      assert(e.status === 404, `${what}: status ${e.status}: ${e.message}`);
      results['404 ' + what] = e.message;
    }
    assert(!(await cached(missing)), '404 cached');
    await generates('after the 404s');
  }],

  ['progress without Content-Length: bytes with total and fraction undefined (worker download and page fetch)', async () => {
    for (const [what, opts, source] of [['worker cache', {}, 'cache'], ['page fetch (no Range support)', { cache: false }, 'bytes']]) {
      const url = '/files/nolength/tiny-llama-q8_0.gguf';
      const events = [];
      const m = await engine.load(url, { contextSize: 128, ...opts, onProgress: (p) => events.push(p) });
      assert(m.source === source, `${what}: source ${m.source}, want ${source}`);
      const dl = events.filter((e) => e.stage === 'download');
      assert(dl.length > 0, `${what}: no download progress: ${JSON.stringify(events.slice(0, 3))}`);
      assert(dl.every((e) => e.total === undefined && e.fraction === undefined), `${what}: ${JSON.stringify(dl.slice(-2))}`);
      assert(dl.every((e, i) => i === 0 || e.loaded >= dl[i - 1].loaded) && dl[dl.length - 1].loaded === info.size, `${what}: loaded ${JSON.stringify(dl.slice(-2))}`);
      const up = events.filter((e) => e.stage === 'upload');
      assert(up.length > 0 && up[up.length - 1].fraction === 1 && up.every((e) => e.total > 0), `${what}: upload ${JSON.stringify(up.slice(-1))}`);
      results['nolength ' + what] = dl.length;
      await generates(`after the ${what} load`);
    }
  }],

  ['a model on another origin without CORS headers: network error that says CORS once, one request', async () => {
    const e = await expectError(engine.load(info.otherOrigin + GOOD, { contextSize: 128 }), 'network');
    assert(e.status === undefined, 'status ' + e.status);
    assert(e.message.split('CORS').length === 2, 'CORS said other than once: ' + e.message);
    results.cors = e.message;
    await generates('after the CORS failure');
  }],
];

globalThis.harnessDone = runTests([...tests, ...splitTests], { timeoutMs: 120000 }).then(async (rep) => {
  engine.terminate();
  return { ...rep, results };
});
