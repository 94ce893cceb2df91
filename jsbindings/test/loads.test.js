// Loads' error and progress shapes (issue 27): HTTP status reaches
// WebGGUFError.status, a cause already in the message is not repeated, and
// a body without Content-Length reports an unknown total.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { GlueCallError } from '../src/errors.js';
import { WebGGUFError } from '../src/webgguf-error.js';
import { readBody, fetchOK } from '../src/fetch.js';

test('an engine error with an HTTP status becomes a network WebGGUFError with status', () => {
  const e = WebGGUFError.from(GlueCallError.fromWire({ kind: 'opfs.http', message: 'opfs: download m: http: status: HTTP 404', cause: '', causeKind: '', status: 404 }));
  assert.equal(e.code, 'network');
  assert.equal(e.status, 404);
  const plain = WebGGUFError.from(GlueCallError.fromWire({ kind: 'opfs.network', message: 'x', cause: '', causeKind: '', status: 0 }));
  assert.equal(plain.status, undefined);
});

test('a cause the engine message already ends with is said once', () => {
  const e = WebGGUFError.from(GlueCallError.fromWire({ kind: 'opfs.network', message: 'fetch: http://x/m.gguf gave no response (CORS …): TypeError: Failed to fetch', cause: 'TypeError: Failed to fetch', causeKind: 'internal', status: 0 }));
  assert.equal(e.message.split('Failed to fetch').length, 2, e.message);
});

test('readBody without Content-Length reports total undefined', async () => {
  const body = new ReadableStream({ start(c) { c.enqueue(new Uint8Array(3)); c.enqueue(new Uint8Array(4)); c.close(); } });
  const res = new Response(body);
  assert.equal(res.headers.get('content-length'), null);
  const seen = [];
  const n = await readBody(res, { onChunk() {}, onProgress: (l, t) => seen.push([l, t]) });
  assert.equal(n, 7);
  assert.deepEqual(seen, [[3, undefined], [7, undefined]]);
  const sized = new Response(new Uint8Array(5), { headers: { 'content-length': '5' } });
  const seen2 = [];
  await readBody(sized, { onChunk() {}, onProgress: (l, t) => seen2.push(t) });
  assert.ok(seen2.every((t) => t === 5), JSON.stringify(seen2));
});

test('fetchOK: an HTTP error has status; no response names CORS once', async () => {
  const saved = globalThis.fetch;
  try {
    globalThis.fetch = async () => new Response('<h1>Not Found</h1>', { status: 404, statusText: 'Not Found' });
    await assert.rejects(fetchOK('http://example.test/m.gguf'), (e) => e.code === 'network' && e.status === 404);
    globalThis.fetch = async () => { throw new TypeError('Failed to fetch'); };
    await assert.rejects(fetchOK('http://example.test/m.gguf'), (e) => e.code === 'network' && e.status === undefined && e.message.split('CORS').length === 2);
  } finally {
    globalThis.fetch = saved;
  }
});
