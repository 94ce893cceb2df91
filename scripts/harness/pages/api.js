// Browser e2e tests of the public API (createEngine, load,
// chat.completions.create, completions.create, tokenize, detokenize,
// applyChatTemplate, embeddings.create, rerank, models.*, info, unload,
// terminate, WebGGUFError, response_format, grammar and tool calls), run by
// scripts/harness/api_e2e_test.go against fixture models. Expected tokens
// come from llama.cpp (testdata/ref/*.ref.json), never from this engine.
import { createEngine, WebGGUFError } from '/jsbindings/src/index.js';
import { assert, runTests } from './common.js';

const MODELS = '/testdata/models/';
const Q8 = MODELS + 'tiny-llama-q8_0.gguf';
const GOTINY = MODELS + 'gotiny-q4_k_m.gguf';

async function ref(name) {
  return (await fetch(`/testdata/ref/${name}.ref.json`)).json();
}

function same(a, b, what) {
  assert(a.length === b.length && a.every((v, i) => v === b[i]), `${what}: ${JSON.stringify(a)} != ${JSON.stringify(b)}`);
}

async function rejects(p, code, what) {
  try {
    await p;
  } catch (e) {
    assert(e instanceof WebGGUFError, `${what}: ${e} is not a WebGGUFError`);
    assert(e.code === code, `${what}: code ${e.code} (${e.message}), want ${code}`);
    return e;
  }
  throw new Error(`${what}: did not reject`);
}

// The test engine: the StatsRequest checks below need it.
const engine = await createEngine({ backend: 'cpu', wasmURL: '/jsbindings/dist/engine-test.wasm' });
const greedy = { temperature: 0, ignore_eos: true, return_tokens: true };

const tests = [
  ['requests before a load fail with no-model', async () => {
    await rejects(engine.tokenize('x'), 'no-model', 'tokenize');
    await rejects(engine.completions.create({ prompt: 'x' }), 'no-model', 'completion');
    const info = await engine.info();
    assert(info.model === null && info.engine.name, 'info without a model: ' + JSON.stringify(info.engine));
  }],
  ['load from a URL reports download, read and upload progress', async () => {
    await engine.models.clear();
    const stages = new Set();
    let last = 0;
    const m = await engine.load(Q8, { contextSize: 512, onProgress: (p) => { stages.add(p.stage); last = p.fraction; } });
    assert(stages.has('download') && stages.has('upload') && last === 1, 'stages ' + [...stages]);
    assert(m.arch === 'llama' && m.vocabSize === 4096 && m.contextSize === 512 && m.backend === 'cpu', JSON.stringify(m));
    assert(m.metadata['general.architecture'] === 'llama', 'metadata');
    const list = await engine.models.list();
    assert(list.length === 1 && list[0].size === m.fileBytes, 'cached once: ' + JSON.stringify(list));
  }],
  ['tokenize and greedy completions equal llama.cpp (tiny-llama-q8_0)', async () => {
    const r = await ref('tiny-llama-q8_0');
    for (const p of r.prompts) {
      same(await engine.tokenize(p.prompt), p.ids, 'tokens');
      const c = await engine.completions.create({ prompt: p.prompt, max_tokens: p.greedy.length, ...greedy });
      same(c.choices[0].tokens, p.greedy, 'greedy ids');
      assert(c.choices[0].text === p.greedy_text, `text ${JSON.stringify(c.choices[0].text)} != llama.cpp ${JSON.stringify(p.greedy_text)}`);
      assert(c.object === 'text_completion' && c.usage.prompt_tokens === p.ids.length && c.usage.completion_tokens === p.greedy.length, JSON.stringify(c.usage));
      assert(c.choices[0].finish_reason === 'length', 'finish');
    }
    const d = await engine.detokenize(r.prompts[1].ids.slice(1));
    assert(d.length > 0 && r.prompts[1].prompt.includes(d.trim().slice(0, 5)), 'detokenize ' + d);
  }],
  ['streamed completion: chunks concatenate to llama.cpp greedy; usage and timings last', async () => {
    const r = await ref('tiny-llama-q8_0');
    const p = r.prompts[2];
    const stream = await engine.completions.create({ prompt: p.prompt, max_tokens: p.greedy.length, stream: true, ...greedy });
    const ids = [];
    let text = '';
    let last;
    for await (const c of stream) {
      ids.push(...(c.choices[0].tokens || []));
      text += c.choices[0].text;
      last = c;
    }
    same(ids, p.greedy, 'streamed ids');
    assert(text === p.greedy_text, 'streamed text');
    assert(last.choices[0].finish_reason === 'length' && last.usage.completion_tokens === p.greedy.length, 'last chunk ' + JSON.stringify(last));
    assert(last.timings.predicted_n === p.greedy.length && last.timings.predicted_ms > 0 && last.timings.time_to_first_token_ms > 0, 'timings ' + JSON.stringify(last.timings));
  }],
  ['chat stream (gotiny, ChatML fallback): role first, content, finish and usage', async () => {
    const m = await engine.load(GOTINY, { contextSize: 512 });
    assert(m.templateWarning && m.templateWarning.includes('ChatML'), 'fallback warning: ' + m.templateWarning);
    const msgs = [{ role: 'system', content: 'Write Go.' }, { role: 'user', content: 'func add(a, b int) int {' }];
    const tpl = await engine.applyChatTemplate(msgs);
    assert(tpl.includes('<|im_start|>user\nfunc add(a, b int) int {<|im_end|>') && tpl.endsWith('<|im_start|>assistant\n'), 'template ' + JSON.stringify(tpl));
    const stream = await engine.chat.completions.create({ messages: msgs, max_tokens: 12, stream: true, temperature: 0 });
    const chunks = [];
    for await (const c of stream) chunks.push(c);
    assert(chunks[0].object === 'chat.completion.chunk' && chunks[0].choices[0].delta.role === 'assistant', 'first chunk');
    const text = chunks.map((c) => c.choices[0].delta.content || '').join('');
    const end = chunks[chunks.length - 1];
    assert(end.choices[0].finish_reason && end.usage.total_tokens === end.usage.prompt_tokens + end.usage.completion_tokens, 'end ' + JSON.stringify(end));
    const whole = await engine.chat.completions.create({ messages: msgs, max_tokens: 12, temperature: 0 });
    assert(whole.choices[0].message.content === text, `non-stream ${JSON.stringify(whole.choices[0].message.content)} != stream ${JSON.stringify(text)}`);
    assert(whole.usage.prompt_tokens_details.cached_tokens > 0, 'the second call reused the cached prompt');
  }],
  ['abort stops generation within one token', async () => {
    const ac = new AbortController();
    const stream = await engine.completions.create({ prompt: 'func main() {', max_tokens: 200, stream: true, signal: ac.signal, ...greedy });
    let n = 0;
    let after = 0;
    const err = await rejects((async () => {
      for await (const c of stream) {
        if (ac.signal.aborted) after++;
        n += c.choices[0].tokens.length;
        if (n === 3) ac.abort();
      }
    })(), 'aborted', 'aborted stream');
    assert(after <= 1, `${after} chunks arrived after the abort`);
    const stats = await engine.client.call('StatsRequest', {});
    assert(stats.inFlight <= 1, 'handler still running: ' + stats.inFlight);
    void err;
    const c = await engine.completions.create({ prompt: 'func', max_tokens: 4, ...greedy });
    assert(c.choices[0].tokens.length === 4, 'engine usable after abort');
  }],
  ['breaking out of the loop cancels the call', async () => {
    const before = await engine.client.call('StatsRequest', {});
    const stream = await engine.completions.create({ prompt: 'package main', max_tokens: 200, stream: true, ...greedy });
    let n = 0;
    for await (const c of stream) { void c; if (++n === 2) break; }
    for (let i = 0; i < 200; i++) {
      const s = await engine.client.call('StatsRequest', {});
      if (Number(s.canceled) > Number(before.canceled)) return;
      await new Promise((r) => setTimeout(r, 10));
    }
    throw new Error('the engine never saw the cancel');
  }],
  ['concurrent calls are queued and answered in order, each as if alone', async () => {
    const prompts = ['func a() {', 'type T struct {', 'import "fmt"'];
    const alone = [];
    for (const p of prompts) alone.push((await engine.completions.create({ prompt: p, max_tokens: 8, ...greedy })).choices[0].tokens);
    const order = [];
    const all = await Promise.all([
      ...prompts.map((p, i) => engine.completions.create({ prompt: p, max_tokens: 8, ...greedy }).then((c) => { order.push(i); return c.choices[0].tokens; })),
      engine.tokenize('x').then(() => { order.push(3); }),
    ]);
    same(order, [0, 1, 2, 3], 'completion order');
    prompts.forEach((_, i) => same(all[i], alone[i], `call ${i}`));
  }],
  ['a call aborted while queued never runs', async () => {
    const ac = new AbortController();
    const first = engine.completions.create({ prompt: 'func b() {', max_tokens: 16, ...greedy });
    const second = engine.completions.create({ prompt: 'func c() {', max_tokens: 16, signal: ac.signal, ...greedy });
    ac.abort();
    await rejects(second, 'aborted', 'queued call');
    assert((await first).choices[0].tokens.length === 16, 'first call');
  }],
  ['contextShift: a generation through a full context goes on (n_keep kept); off, it ends at length', async () => {
    await engine.load(Q8, { contextSize: 64 });
    const prompt = 'The quick brown fox';
    const off = await engine.completions.create({ prompt, max_tokens: 150, ...greedy });
    const n = off.usage.prompt_tokens;
    assert(off.choices[0].finish_reason === 'length' && off.usage.completion_tokens === 64 - n + 1 && off.timings.context_shifts === 0, 'without shift: ' + JSON.stringify(off.usage));
    const on = await engine.completions.create({ prompt, max_tokens: 150, contextShift: true, n_keep: 4, ...greedy });
    const ids = on.choices[0].tokens;
    assert(ids.length === 150 && on.timings.context_shifts >= 2, `with shift: ${ids.length} tokens, ${on.timings.context_shifts} shifts`);
    // llama.cpp's loop shifts when n_past + 1 reaches n_ctx: the tokens
    // before the first shift are those of the run without it.
    same(ids.slice(0, 64 - n), off.choices[0].tokens.slice(0, 64 - n), 'tokens before the first shift');
    await rejects(engine.completions.create({ prompt, contextShift: 'yes' }), 'invalid-argument', 'contextShift not a boolean');
  }],
  ['sessions: save, restore into a reloaded model, continue as without saving; bad bytes and other models refused', async () => {
    await engine.load(Q8, { contextSize: 128 });
    const first = await engine.completions.create({ prompt: 'Once upon a time', max_tokens: 20, ...greedy });
    const saved = await engine.sessions.save({ meta: { chat: 1 } });
    assert(saved instanceof Uint8Array && saved.length > 1000, 'saved ' + saved.length);
    const more = first.choices[0].text + ' and then';
    const want = await engine.completions.create({ prompt: 'Once upon a time' + more, max_tokens: 12, ...greedy });
    await engine.load(Q8, { contextSize: 128 }); // a fresh engine state: nothing cached
    const r = await engine.sessions.restore(saved);
    assert(r.tokens > 20 && r.meta.chat === 1, 'restored ' + JSON.stringify(r));
    const got = await engine.completions.create({ prompt: 'Once upon a time' + more, max_tokens: 12, ...greedy });
    same(got.choices[0].tokens, want.choices[0].tokens, 'tokens after restore');
    assert(got.usage.prompt_tokens_details.cached_tokens >= 5, 'restored tokens reused: ' + JSON.stringify(got.usage));
    await rejects(engine.sessions.restore(saved.slice(0, saved.length - 9)), 'bad-file', 'truncated save');
    const corrupt = saved.slice();
    corrupt[corrupt.length >> 1] ^= 1;
    await rejects(engine.sessions.restore(corrupt), 'bad-file', 'corrupt save');
    const again = await engine.completions.create({ prompt: 'Once upon a time' + more, max_tokens: 12, ...greedy });
    same(again.choices[0].tokens, want.choices[0].tokens, 'tokens after refused restores');
    await engine.load(Q8, { contextSize: 64 });
    await rejects(engine.sessions.restore(saved), 'invalid-argument', 'another context size');
  }],
  ['errors: bad-file, network, unsupported-model, context-full, invalid-argument; webgpu loads or is gpu-unavailable', async () => {
    await rejects(engine.load(new Uint8Array([71, 71, 85, 70, 3, 0, 0, 0, 9, 9, 9])), 'bad-file', 'truncated GGUF');
    const e404 = await rejects(engine.load('/testdata/models/missing.gguf', { cache: false }), 'network', 'HTTP 404');
    assert(e404.status === 404, 'status');
    const vocab = await engine.load(MODELS + 'vocab-llama-spm.gguf', { cache: false }).then(() => null, (e) => e);
    assert(vocab instanceof WebGGUFError && ['unsupported-model', 'bad-file'].includes(vocab.code), 'vocab-only file: ' + vocab);
    await engine.load(GOTINY, { contextSize: 16 });
    await rejects(engine.completions.create({ prompt: 'func main() { return }\n'.repeat(8) }), 'context-full', 'long prompt');
    await rejects(engine.completions.create({ prompt: 'x', temperature: -1 }), 'invalid-argument', 'temperature');
    await rejects(engine.chat.completions.create({ messages: [] }), 'invalid-argument', 'empty messages');
    // The WebGPU backend either loads or says why it cannot (no adapter in
    // this worker, SwiftShader limits): never another kind of failure.
    const w = await engine.load(GOTINY, { backend: 'webgpu', contextSize: 64 }).then((m) => m, (e) => e);
    assert(w.backend === 'webgpu' || (w instanceof WebGGUFError && w.code === 'gpu-unavailable'), 'webgpu backend: ' + (w.stack || JSON.stringify(w)));
    console.log('webgpu backend: ' + (w.backend || w.message));
  }],
  ['embeddings.create equals the float64 reference (tiny-bert-f16, cpu; webgpu with ?long=1); typed errors', async () => {
    await engine.load(Q8, { cache: false });
    await rejects(engine.embeddings.create({ input: 'x' }), 'invalid-argument', 'embeddings from a generative model');
    const exact = await (await fetch('/testdata/ref/tiny-bert-f16.exact.json')).json();
    const input = exact.prompts.map((p) => p.prompt);
    const long = new URLSearchParams(location.search).get('long') === '1';
    for (const backend of long ? ['cpu', 'webgpu'] : ['cpu']) {
      const m = await engine.load(MODELS + 'tiny-bert-f16.gguf', { cache: false, backend }).then((x) => x, (e) => e);
      if (backend === 'webgpu' && m instanceof WebGGUFError && m.code === 'gpu-unavailable') {
        console.log('embeddings on webgpu: ' + m.message);
        continue;
      }
      assert(m.arch === 'bert', `${backend}: loaded ${JSON.stringify(m)}`);
      const raw = await engine.embeddings.create({ input, normalize: false });
      assert(raw.object === 'list' && raw.data.length === input.length, 'response shape');
      let worst = 0;
      raw.data.forEach((d, i) => {
        assert(d.object === 'embedding' && d.index === i && d.embedding.length === 96, `data[${i}]`);
        d.embedding.forEach((v, j) => { worst = Math.max(worst, Math.abs(v - exact.prompts[i].embedding[j])); });
      });
      const tokens = exact.prompts.reduce((n, p) => n + p.ids.length, 0);
      assert(raw.usage.prompt_tokens === tokens && raw.usage.total_tokens === tokens, 'usage ' + JSON.stringify(raw.usage));
      console.log(`embeddings on ${backend}: max |diff| from float64 ${worst}`);
      assert(worst <= 1e-3, `${backend}: max |diff| ${worst} > 1e-3`);
      const unit = await engine.embeddings.create({ input: input[0] });
      const norm = Math.hypot(...unit.data[0].embedding);
      assert(Math.abs(norm - 1) < 1e-5, 'normalized by default: norm ' + norm);
      const b64 = await engine.embeddings.create({ input: input[0], encoding_format: 'base64' });
      const bytes = Uint8Array.from(atob(b64.data[0].embedding), (c) => c.charCodeAt(0));
      same(Array.from(new Float32Array(bytes.buffer)), unit.data[0].embedding.map(Math.fround), 'base64');
      await rejects(engine.chat.completions.create({ messages: [{ role: 'user', content: 'hi' }] }), 'invalid-argument', 'chat on an embedding model');
      await rejects(engine.rerank({ query: 'q', documents: ['d'] }), 'invalid-argument', 'rerank without rank pooling');
    }
  }],
  ['models: download, list, has, load by id, delete, clear, estimate', async () => {
    await engine.models.clear();
    const ev = [];
    const entry = await engine.models.download(Q8, { onProgress: (p) => ev.push(p) });
    assert(ev.length > 0 && ev[ev.length - 1].loaded === entry.size && entry.size > 0, 'download progress');
    assert(await engine.models.has(Q8) && await engine.models.has(entry.id), 'has');
    const m = await engine.load(entry.id);
    assert(m.fileBytes === entry.size, 'loaded from the cache by id');
    const est = await engine.models.estimate();
    assert(est.usage >= entry.size && est.quota > 0, 'estimate ' + JSON.stringify(est));
    assert(await engine.models.delete(entry.id) === true && await engine.models.delete(entry.id) === false, 'delete');
    await rejects(engine.load(entry.id), 'not-found', 'deleted id');
    await engine.models.download(Q8);
    assert(await engine.models.clear() === 1 && (await engine.models.list()).length === 0, 'clear');
  }],
  ['structured output: json_schema streamed and not, greedy and sampled', async () => {
    await engine.load(GOTINY, { contextSize: 1024 });
    const isInt = (v, lo, hi) => Number.isInteger(v) && v >= lo && v <= hi;
    const keys = (o, want) => o && typeof o === 'object' && !Array.isArray(o) && Object.keys(o).every((k) => want.includes(k));
    // Each schema with a check written from the schema, not from the engine.
    const schemas = [
      [{ type: 'object', properties: { lang: { enum: ['go', 'c', 'rust'] }, n: { type: 'integer', minimum: 1, maximum: 50 }, ok: { type: 'boolean' } }, required: ['lang', 'n', 'ok'] },
        (v) => keys(v, ['lang', 'n', 'ok']) && ['go', 'c', 'rust'].includes(v.lang) && isInt(v.n, 1, 50) && typeof v.ok === 'boolean'],
      [{ type: 'array', items: { type: 'integer', minimum: -9, maximum: 9 }, minItems: 1, maxItems: 3 },
        (v) => Array.isArray(v) && v.length >= 1 && v.length <= 3 && v.every((x) => isInt(x, -9, 9))],
      [{ $defs: { p: { type: 'object', properties: { x: { type: 'integer', minimum: 0, maximum: 9 } }, required: ['x'] } }, type: 'object', properties: { a: { $ref: '#/$defs/p' }, b: { $ref: '#/$defs/p' } }, required: ['a', 'b'] },
        (v) => keys(v, ['a', 'b']) && keys(v.a, ['x']) && isInt(v.a.x, 0, 9) && keys(v.b, ['x']) && isInt(v.b.x, 0, 9)],
      [{ type: 'object', properties: { code: { type: 'string', pattern: '^[A-Z]{2}-[0-9]{2}$' }, name: { type: 'string', maxLength: 8 } }, required: ['code'] },
        (v) => keys(v, ['code', 'name']) && /^[A-Z]{2}-[0-9]{2}$/.test(v.code) && (v.name === undefined || (typeof v.name === 'string' && [...v.name].length <= 8))],
    ];
    const messages = [{ role: 'user', content: 'func main() {' }];
    // Each schema greedy and sampled, one of the two streamed (both for the
    // first, whose streamed text must equal the whole response's).
    for (const [i, [schema, check]] of schemas.entries()) {
      const response_format = { type: 'json_schema', json_schema: { name: 's' + i, schema, strict: true } };
      for (const [j, sampling] of [{ temperature: 0 }, { temperature: 0.9, seed: 7 + i }].entries()) {
        const what = `schema ${i} ${JSON.stringify(sampling)}`;
        let text = null;
        if (i === 0 || j === 0) {
          const whole = await engine.chat.completions.create({ messages, max_tokens: 300, response_format, ...sampling });
          text = whole.choices[0].message.content;
          assert(whole.choices[0].finish_reason === 'stop', `${what}: finish ${whole.choices[0].finish_reason}: ${JSON.stringify(text)}`);
          assert(check(JSON.parse(text)), `${what}: ${JSON.stringify(text)} breaks the schema`);
        }
        if (i === 0 || j === 1) {
          const stream = await engine.chat.completions.create({ messages, max_tokens: 300, response_format, stream: true, ...sampling });
          let streamed = '';
          let finish = null;
          for await (const c of stream) { streamed += c.choices[0].delta.content ?? ''; finish = c.choices[0].finish_reason ?? finish; }
          assert(finish === 'stop' && check(JSON.parse(streamed)), `${what} streamed: ${finish} ${JSON.stringify(streamed)}`);
          assert(text === null || streamed === text, `${what}: streamed ${JSON.stringify(streamed)} != ${JSON.stringify(text)}`);
        }
      }
    }
  }],
  ['structured output: json_object, a grammar, bad response_format and grammar inputs', async () => {
    const messages = [{ role: 'user', content: 'func main() {' }];
    // json_object leaves strings unbounded: these two end within 400 tokens.
    for (const sampling of [{ temperature: 0 }, { temperature: 0.7, seed: 2 }]) {
      const obj = await engine.completions.create({ prompt: 'var config = ', max_tokens: 400, response_format: { type: 'json_object' }, ...sampling });
      assert(obj.choices[0].finish_reason === 'stop', 'json_object: finish ' + obj.choices[0].finish_reason);
      const o = JSON.parse(obj.choices[0].text);
      assert(o && typeof o === 'object' && !Array.isArray(o), 'json_object: ' + obj.choices[0].text);
    }
    const grammar = 'root ::= ("yes" | "no") "." ';
    for (const stream of [false, true]) {
      const r = await engine.completions.create({ prompt: 'ok? ', max_tokens: 8, grammar, stream, temperature: 0 });
      let text = '';
      if (stream) for await (const c of r) text += c.choices[0].text;
      else text = r.choices[0].text;
      assert(text === 'yes.' || text === 'no.', `grammar (stream ${stream}): ${JSON.stringify(text)}`);
    }
    const bad = [
      [{ grammar: 'root ::= "a"\nx ::= [' }, /2:/],
      [{ grammar: 'root ::= missing' }, /missing/],
      [{ response_format: { type: 'json_schema', json_schema: { name: 'x', schema: { type: 'object', properties: { a: { type: 'number', minimum: 0 } } } } } }, /\/properties\/a\/minimum/],
      [{ response_format: { type: 'json_schema', json_schema: { name: 'x', schema: { type: 'kaboom' } } } }, /type/],
      [{ response_format: { type: 'yaml' } }, /response_format/],
      [{ response_format: { type: 'json_object' }, grammar }, /exclude/],
      [{ response_format: { type: 'json_schema' } }, /json_schema/],
    ];
    for (const [req, want] of bad) {
      for (const create of [(r) => engine.completions.create({ prompt: 'x', ...r }), (r) => engine.chat.completions.create({ messages, stream: true, ...r }).then(async (s) => { for await (const c of s) void c; })]) {
        const e = await rejects(create(req), 'invalid-argument', JSON.stringify(req));
        assert(want.test(e.message), `${JSON.stringify(req)}: message ${JSON.stringify(e.message)} lacks ${want}`);
      }
    }
  }],
  ['tool calls: forced call, tool result, next turn, streamed and not, three template families', async () => {
    // Tiny random-weight models that api_e2e_test.go generates with the
    // real Qwen3 (Hermes), Llama 3.2 and Mistral Nemo templates.
    const tools = [{ type: 'function', function: { name: 'get_weather', description: 'Weather in a city',
      parameters: { type: 'object', properties: { city: { type: 'string', minLength: 1, maxLength: 8 }, unit: { enum: ['c', 'f'] } }, required: ['city', 'unit'] } } }];
    const validCall = (c) => c && c.type === 'function' && typeof c.id === 'string' && c.id && c.function.name === 'get_weather' &&
      (() => { const a = JSON.parse(c.function.arguments); return typeof a.city === 'string' && [...a.city].length >= 1 && [...a.city].length <= 8 && ['c', 'f'].includes(a.unit) && Object.keys(a).length === 2; })();
    for (const [i, fam] of ['qwen3', 'llama3.2', 'mistral-nemo'].entries()) {
      await engine.load(`/gen/tools-${fam}.gguf`, { contextSize: 1024, cache: false });
      const user = { role: 'user', content: 'Weather in Paris?' };
      const choice = i === 1 ? 'required' : { type: 'function', function: { name: 'get_weather' } };
      const req = { messages: [user], tools, tool_choice: choice, max_tokens: 120, temperature: 0.9, seed: 3 + i };
      const r = await engine.chat.completions.create(req);
      const m = r.choices[0].message;
      assert(r.choices[0].finish_reason === 'tool_calls' && m.content === null && m.tool_calls.length === 1 && validCall(m.tool_calls[0]), `${fam}: ${JSON.stringify(r.choices[0])}`);
      const chunks = [];
      for await (const c of await engine.chat.completions.create({ ...req, stream: true })) chunks.push(c);
      const deltas = chunks.flatMap((c) => c.choices[0].delta.tool_calls ?? []);
      assert(deltas.length === 1 && deltas[0].index === 0 && validCall(deltas[0]) && chunks.at(-1).choices[0].finish_reason === 'tool_calls', `${fam} streamed: ${JSON.stringify(chunks)}`);
      assert(!chunks.some((c) => (c.choices[0].delta.content ?? '') !== ''), `${fam}: call text streamed as content`);
      // The call and its result go back; the next turn renders and runs.
      const next = [user, m, { role: 'tool', tool_call_id: m.tool_calls[0].id, name: 'get_weather', content: '{"temp": 21}' }];
      for (const stream of [false, true]) {
        const n = { messages: next, tools, tool_choice: 'none', max_tokens: 4, temperature: 0, stream };
        if (!stream) {
          const r2 = await engine.chat.completions.create(n);
          assert(r2.choices[0].finish_reason !== 'tool_calls' && typeof r2.choices[0].message.content === 'string' && r2.usage.prompt_tokens > r.usage.prompt_tokens, `${fam} next turn: ${JSON.stringify(r2)}`);
        } else {
          const cs = [];
          for await (const c of await engine.chat.completions.create(n)) cs.push(c);
          assert(cs.some((c) => typeof c.choices[0].delta.content === 'string') && cs.at(-1).choices[0].finish_reason !== 'tool_calls', `${fam} next turn streamed: ${JSON.stringify(cs)}`);
        }
      }
    }
    // Gemma 3's template has no tool-call format: a typed error naming it.
    await engine.load(MODELS + 'tiny-gemma3-q8_0.gguf', { cache: false });
    const e = await rejects(engine.chat.completions.create({ messages: [{ role: 'user', content: 'hi' }], tools, max_tokens: 2 }), 'invalid-argument', 'tools on Gemma 3');
    assert(/chat template/.test(e.message), e.message);
  }],
  ['info, unload, terminate', async () => {
    await engine.load(Q8, { cache: false });
    const info = await engine.info();
    assert(info.model && info.model.arch === 'llama' && typeof info.gpu.available === 'boolean', JSON.stringify(info));
    assert(await engine.unload() === true && await engine.unload() === false, 'unload');
    engine.terminate();
    await rejects(engine.tokenize('x'), 'crashed', 'after terminate');
  }],
];

// 120 s a test: the "errors" test loads several models in turn and took
// 53-59 s on a loaded 2-core CI machine, against the 60 s default.
globalThis.harnessDone = runTests(tests, { timeoutMs: 120000 });
