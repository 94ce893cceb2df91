// The model cache's keys: the id rule shared with the worker (package opfs,
// through testdata/cachekeys.json) and load()'s check that a cached entry
// was stored for the URL asked for.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { idFor, validId } from '../src/cache.js';
import { WorkerModelCache } from '../src/cache-worker.js';
import { WebGGUFEngine } from '../src/api.js';

const table = JSON.parse(readFileSync(new URL('../../testdata/cachekeys.json', import.meta.url), 'utf8'));

test('idFor derives the keys opfs.KeyForURL derives (testdata/cachekeys.json)', async () => {
  assert.ok(table.keys.length > 0);
  for (const { url, key } of table.keys) {
    assert.equal(new URL(url).href, url, 'the table holds serialized URLs');
    assert.equal(await idFor(url), key, url);
    assert.ok(validId(key), key);
  }
});

test('validId accepts the ids opfs.ValidKey accepts, and only those', () => {
  assert.ok(table.ids.length > 0);
  for (const { id, valid } of table.ids) assert.equal(validId(id), valid, JSON.stringify(id));
  assert.equal(validId(undefined), false);
});

test('idFor keeps 128 bits of the URL hash', async () => {
  const id = await idFor('https://example.com/m.gguf');
  assert.match(id, /^m\.gguf-[0-9a-f]{32}$/);
});

// engineWith returns an engine whose cache is a fake worker cache holding
// entries (id -> entry), recording downloads.
function engineWith(entries) {
  const downloads = [];
  const cache = Object.create(WorkerModelCache.prototype);
  Object.assign(cache, {
    get: async (id) => (entries[id] ? { ...entries[id], id } : null),
    download: async (url, { id }) => {
      downloads.push({ url, id });
      entries[id] = { url, name: 'm.gguf', size: 1 };
      return { ...entries[id], id };
    },
  });
  const e = new WebGGUFEngine({ on() {} }, { backend: 'auto' });
  e.cache = cache;
  return { e, downloads };
}

test('load() does not use a cached entry stored for another URL under the same id', async () => {
  const real = 'https://example.com/models/m.gguf';
  const id = await idFor(real);
  // An entry under the real URL's id that records another URL: a forged
  // URL whose id collides, or an entry of an older id rule.
  const { e, downloads } = engineWith({ [id]: { url: 'https://evil.example/m.gguf', name: 'm.gguf', size: 1 } });
  assert.equal(await e.models.has(real), false);
  const src = await e.resolveSource(real, {}, () => {});
  assert.deepEqual(downloads, [{ url: real, id }], 'the real URL is downloaded over the entry');
  assert.deepEqual(src.fields, { key: id });
  assert.equal(await e.models.has(real), true);
});

test('load() uses a cached entry stored for the same URL without downloading', async () => {
  const real = 'https://example.com/models/m.gguf';
  const id = await idFor(real);
  const { e, downloads } = engineWith({ [id]: { url: real, name: 'm.gguf', size: 1 } });
  assert.equal(await e.models.has(real), true);
  const src = await e.resolveSource(real, {}, () => {});
  assert.deepEqual(downloads, []);
  assert.deepEqual(src.fields, { key: id });
});
