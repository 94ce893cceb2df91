import { test } from 'node:test';
import assert from 'node:assert/strict';
import { embedRequest, embedResponse, rerankRequest, rerankResponse } from '../src/embeddings.js';

const resp = { nEmbd: 4, data: Float32Array.from([0.5, 0.5, 0.5, 0.5, 3, 4, 0, 0]), tokens: [3, 5] };

test('embeddings: input forms, defaults, bad requests are invalid-argument', () => {
  const p = embedRequest({ input: 'hi' });
  assert.deepEqual(p.fields, { inputs: ['hi'], normalize: true });
  assert.equal(p.format, 'float');
  assert.equal(embedRequest({ input: ['a', 'b'], normalize: false }).fields.normalize, false);
  for (const bad of [null, {}, { input: [] }, { input: [1] }, { input: 'x', encoding_format: 'int8' }, { input: 'x', dimensions: 0 }, { input: 'x', dimensions: 1.5 }, { input: 'x', normalize: 'yes' }]) {
    assert.throws(() => embedRequest(bad), (e) => e.code === 'invalid-argument', JSON.stringify(bad));
  }
});

test('embeddings: OpenAI response with usage; dimensions truncate and renormalize', () => {
  const r = embedResponse(resp, embedRequest({ input: ['a', 'b'] }), 'm');
  assert.equal(r.object, 'list');
  assert.equal(r.model, 'm');
  assert.deepEqual(r.usage, { prompt_tokens: 8, total_tokens: 8 });
  assert.deepEqual(r.data[1], { object: 'embedding', index: 1, embedding: [3, 4, 0, 0] });
  const d = embedResponse(resp, embedRequest({ input: ['a', 'b'], dimensions: 2 }), 'm');
  assert.deepEqual(d.data[1].embedding.map((x) => Math.round(x * 1e6) / 1e6), [0.6, 0.8]);
  assert.throws(() => embedResponse(resp, embedRequest({ input: 'a', dimensions: 5 }), 'm'), (e) => e.code === 'invalid-argument');
});

test('embeddings: base64 is the little-endian float32 bytes', () => {
  const r = embedResponse(resp, embedRequest({ input: ['a', 'b'], encoding_format: 'base64' }), 'm');
  const bytes = Uint8Array.from(atob(r.data[1].embedding), (c) => c.charCodeAt(0));
  assert.deepEqual(Array.from(new Float32Array(bytes.buffer)), [3, 4, 0, 0]);
});

test('rerank: best first, top_n, documents on request, usage', () => {
  const p = rerankRequest({ query: 'q', documents: ['a', 'b', 'c'], top_n: 2, return_documents: true });
  const r = rerankResponse({ scores: Float32Array.from([-1, 2, 0.5]), tokens: [4, 5, 6] }, p, 'm');
  assert.deepEqual(r.results, [{ index: 1, relevance_score: 2, document: { text: 'b' } }, { index: 2, relevance_score: 0.5, document: { text: 'c' } }]);
  assert.deepEqual(r.usage, { prompt_tokens: 15, total_tokens: 15 });
  for (const bad of [null, { documents: ['a'] }, { query: 'q', documents: [] }, { query: 'q', documents: ['a'], top_n: 0 }]) {
    assert.throws(() => rerankRequest(bad), (e) => e.code === 'invalid-argument', JSON.stringify(bad));
  }
});
