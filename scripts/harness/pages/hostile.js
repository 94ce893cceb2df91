// Browser e2e test of hostile inputs and GPU device loss through the public
// API and the engine's worker (issue 28). Run by
// scripts/harness/hostile_e2e_test.go.
//
// Hostile files are tiny-llama-q8_0 made hostile here, in bytes: a chat
// template nested 100 000 deep (it overflowed the parser's stack and killed
// the worker on load), a truncated file, absurd tensor and key counts. Each
// must end in a typed result (the model loads with ChatML and a warning, or
// 'bad-file'), and the same worker must then load the real model and
// generate llama.cpp's greedy ids.
//
// Device loss: the engine runs in device-loss-worker.js, which destroys the
// worker's GPUDevice on request (device.lost settles with 'destroyed'). A
// loss in the middle of a load and in the middle of a streamed generation
// must end that call with code 'device-lost' (no hang, no crash), and a
// later load() must open a new device and generate llama.cpp's ids again.
import { createEngine, WebGGUFError } from '/jsbindings/src/index.js';
import { assert, runTests, withTimeout } from './common.js';

const Q8 = '/testdata/models/tiny-llama-q8_0.gguf';
const greedy = { temperature: 0, ignore_eos: true, return_tokens: true };
const ref = await (await fetch('/testdata/ref/tiny-llama-q8_0.ref.json')).json();
const good = new Uint8Array(await (await fetch(Q8)).arrayBuffer());
const prompt = ref.prompts.find((p) => p.greedy && p.greedy.length >= 4);

function same(a, b, what) {
  assert(a.length === b.length && a.every((v, i) => v === b[i]), `${what}: ${JSON.stringify(a)} != ${JSON.stringify(b)}`);
}

// expectCode awaits p and checks that it rejects with a WebGGUFError of code.
async function expectCode(p, code, what) {
  try {
    await p;
  } catch (e) {
    assert(e instanceof WebGGUFError, `${what}: ${e && e.stack || e} is not a WebGGUFError`);
    assert(e.code === code, `${what}: code ${e.code} (${e.message}), want ${code}`);
    return e;
  }
  throw new Error(`${what}: succeeded, want code ${code}`);
}

// greedyPrefix checks that the loaded model's first greedy tokens for the
// reference prompt are llama.cpp's.
async function greedyPrefix(engine, n, what) {
  const c = await engine.completions.create({ prompt: prompt.prompt, max_tokens: n, ...greedy });
  same(c.choices[0].tokens, prompt.greedy.slice(0, n), `${what}: greedy ids of ${JSON.stringify(prompt.prompt)} (llama.cpp)`);
}

const le = (b, off, v) => new DataView(b.buffer, b.byteOffset).setBigUint64(off, BigInt(v), true);
const getU64 = (b, off) => Number(new DataView(b.buffer, b.byteOffset).getBigUint64(off, true));

// withTemplate returns file with a tokenizer.chat_template key of tpl
// inserted before its first key. The file has no such key and the default
// alignment (32): the new key is padded (spaces after the template's text)
// to a multiple of 32 bytes, so every tensor keeps its aligned offset.
function withTemplate(file, tpl) {
  const key = new TextEncoder().encode('tokenizer.chat_template');
  let val = new TextEncoder().encode(tpl);
  const head = 8 + key.length + 4 + 8;
  const pad = (32 - ((head + val.length) % 32)) % 32;
  val = new TextEncoder().encode(tpl + ' '.repeat(pad));
  const kv = new Uint8Array(head + val.length);
  le(kv, 0, key.length);
  kv.set(key, 8);
  new DataView(kv.buffer).setUint32(8 + key.length, 8, true); // GGUF string
  le(kv, 8 + key.length + 4, val.length);
  kv.set(val, head);
  const out = new Uint8Array(file.length + kv.length);
  out.set(file.subarray(0, 24));
  le(out, 16, getU64(file, 16) + 1); // kv_count
  out.set(kv, 24);
  out.set(file.subarray(24), 24 + kv.length);
  return out;
}

// withCount returns a copy of file with the u64 at off (8: tensor_count,
// 16: kv_count) set to v.
function withCount(file, off, v) {
  const out = file.slice();
  le(out, off, v);
  return out;
}

// DeviceLossWorker starts the engine's worker through device-loss-worker.js.
class DeviceLossWorker extends Worker {
  constructor(_url, opts) { super('/scripts/harness/pages/device-loss-worker.js', opts); }
}

// The page's end of the hook's BroadcastChannel: next(op) resolves to the
// next message of that op (or rejects on the hook's error message).
const chan = new BroadcastChannel('webgguf-test-gpu');
const waiting = [];
chan.onmessage = (e) => {
  const i = waiting.findIndex((w) => w.op === e.data.op || e.data.op === 'error');
  if (i < 0) return;
  const [w] = waiting.splice(i, 1);
  if (e.data.op === 'error') w.reject(new Error(e.data.message));
  else w.resolve(e.data);
};
const next = (op) => new Promise((resolve, reject) => waiting.push({ op, resolve, reject }));

const report = await runTests([
  ['hostile GGUFs end in typed results; the worker then loads and runs a good model', async () => {
    const engine = await createEngine({ backend: 'cpu' });
    try {
      // Nested 100 000 deep (a 200 KB template): ChatML and a warning.
      for (const [open, close] of [['(', ')'], ['[', ']']]) {
        const tpl = `{{ ${open.repeat(100000)}1${close.repeat(100000)} }}`;
        const m = await engine.load(withTemplate(good, tpl), { name: `nested-${open}.gguf`, contextSize: 256 });
        assert(m.templateWarning && m.templateWarning.includes('nesting depth'), `nested ${open}: warning ${JSON.stringify(m.templateWarning)} does not name the limit`);
        const chatml = await engine.applyChatTemplate([{ role: 'user', content: 'hi' }]);
        assert(chatml === '<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\n', `nested ${open}: ChatML fallback ${JSON.stringify(chatml)}`);
      }
      // The caller's own hostile template (never ends without the
      // recursion limit): a typed error of that call only.
      await expectCode(engine.applyChatTemplate([{ role: 'user', content: 'hi' }], { template: '{% for x in [1] recursive %}{{ loop([1]) }}{% endfor %}' }), 'invalid-argument', 'recursive loop() template');
      const bad = [
        ['truncated in the vocabulary', good.slice(0, 40000)],
        ['truncated in the tensor data', good.slice(0, good.length - 4096)],
        ['2^40 tensors', withCount(good, 8, 2 ** 40)],
        ['2^64-1 keys', withCount(good, 16, 2n ** 64n - 1n)],
        ['2^31 keys', withCount(good, 16, 2 ** 31)],
      ];
      for (const [what, bytes] of bad) await expectCode(engine.load(bytes, { name: 'hostile.gguf', contextSize: 256 }), 'bad-file', what);
      // A file rejected while reading leaves the loaded model in place.
      const info = await engine.info();
      assert(info.model && info.model.name === 'nested-[.gguf', 'after the rejected files: ' + JSON.stringify(info.model && info.model.name));
      const m = await engine.load(Q8, { contextSize: 256 });
      assert(m.backend === 'cpu' && !m.templateWarning.includes('nesting'), 'good model: ' + JSON.stringify(m));
      await greedyPrefix(engine, prompt.greedy.length, 'good model after the hostile ones');
    } finally {
      await engine.terminate();
    }
  }],
  ['GPU device lost mid-load and mid-generation: device-lost, then load() works on a new device', async () => {
    const engine = await createEngine({ backend: 'webgpu', Worker: DeviceLossWorker });
    try {
      // Lost in the middle of the load: the second writeBuffer (weights
      // stream in 1 MiB writes) destroys the device.
      const armed = next('armed');
      chan.postMessage({ op: 'destroy-at-write', n: 2 });
      await armed;
      let lost = next('destroyed');
      await expectCode(withTimeout(engine.load(Q8, { contextSize: 256 }), 120000, 'load on a lost device'), 'device-lost', 'device lost mid-load');
      const l1 = await withTimeout(lost, 5000, 'the hook saw device.lost');
      assert(l1.reason === 'destroyed' && engine.model === null, 'mid-load loss: ' + JSON.stringify([l1, engine.model]));

      const m = await engine.load(Q8, { contextSize: 256 });
      assert(m.backend === 'webgpu', 'reload after the mid-load loss ran on ' + m.backend);
      await greedyPrefix(engine, 4, 'after the mid-load loss');

      // Lost while a stream is generating: the stream ends with the error.
      lost = next('destroyed');
      const stream = await engine.completions.create({ prompt: prompt.prompt, max_tokens: 200, stream: true, ...greedy });
      let chunks = 0;
      const done = (async () => {
        for await (const _ of stream) {
          if (++chunks === 1) chan.postMessage({ op: 'destroy' });
        }
      })();
      const e = await expectCode(withTimeout(done, 60000, 'stream on a lost device'), 'device-lost', 'device lost mid-generation');
      assert(chunks >= 1 && chunks < 200, `the stream gave ${chunks} chunks before failing`);
      const l2 = await withTimeout(lost, 5000, 'the hook saw device.lost');
      assert(l2.reason === 'destroyed' && l2.devices === 2, 'mid-generation loss: ' + JSON.stringify(l2));
      console.log(`device lost after ${chunks} chunks: ${e.message}`);
      // The lost device's model is gone: calls say so until load().
      assert(engine.model === null, 'engine.model after the loss: ' + JSON.stringify(engine.model));
      await expectCode(engine.completions.create({ prompt: 'x', max_tokens: 1 }), 'no-model', 'completion after the loss');
      const info = await engine.info();
      assert(info.model === null, 'info after the loss: ' + JSON.stringify(info.model));

      const m2 = await engine.load(Q8, { contextSize: 256 });
      assert(m2.backend === 'webgpu', 'reload after the mid-generation loss ran on ' + m2.backend);
      await greedyPrefix(engine, 4, 'after the mid-generation loss');
    } finally {
      await engine.terminate();
    }
  }],
// SwiftShader compiles the kernels for ~10-30 s a load and the GPU case
// loads three times (one cut short).
], { timeoutMs: 300000 });
globalThis.harnessDone = report;
