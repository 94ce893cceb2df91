// ModelCache reads the engine worker's OPFS layout on the page
// (webgguf/models/<id>/00000.gguf + meta.json, package opfs), here on an
// in-memory fake of navigator.storage.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ModelCache, entryOf } from '../src/cache.js';

class FakeDir {
  constructor() { this.kind = 'directory'; this.items = new Map(); }
  async getDirectoryHandle(name, { create = false } = {}) {
    let d = this.items.get(name);
    if (!d) {
      if (!create) throw Object.assign(new Error('no ' + name), { name: 'NotFoundError' });
      d = new FakeDir();
      this.items.set(name, d);
    }
    if (d.kind !== 'directory') throw Object.assign(new Error(name), { name: 'TypeMismatchError' });
    return d;
  }
  async getFileHandle(name) {
    const f = this.items.get(name);
    if (!f || f.kind !== 'file') throw Object.assign(new Error('no ' + name), { name: 'NotFoundError' });
    return f;
  }
  async removeEntry(name) {
    if (!this.items.delete(name)) throw Object.assign(new Error('no ' + name), { name: 'NotFoundError' });
  }
  async *entries() { yield* this.items.entries(); }
  put(name, bytes) {
    this.items.set(name, { kind: 'file', getFile: async () => new File([bytes], name) });
  }
}

function withStorage(root, fn) {
  const saved = Object.getOwnPropertyDescriptor(globalThis, 'navigator');
  Object.defineProperty(globalThis, 'navigator', { value: { storage: { getDirectory: async () => root } }, configurable: true });
  return fn().finally(() => (saved ? Object.defineProperty(globalThis, 'navigator', saved) : delete globalThis.navigator));
}

const meta = (key, sizes, url = 'https://example.com/models/m.gguf') => ({
  version: 1, key, urls: sizes.map(() => url), sizes, etags: sizes.map(() => ''), lastModified: sizes.map(() => ''), created: '2026-12-02T01:00:00Z',
});

async function layout() {
  const root = new FakeDir();
  const models = await (await root.getDirectoryHandle('webgguf', { create: true })).getDirectoryHandle('models', { create: true });
  const partial = await (await root.getDirectoryHandle('webgguf')).getDirectoryHandle('partial', { create: true });
  const add = async (id, m, bytes) => {
    const d = await models.getDirectoryHandle(id, { create: true });
    if (bytes) d.put('00000.gguf', bytes);
    if (m) d.put('meta.json', JSON.stringify(m));
  };
  await add('m.gguf-1', meta('m.gguf-1', [4]), new Uint8Array([71, 71, 85, 70]));
  await add('split-2', meta('split-2', [4, 3]), new Uint8Array(4));
  (await models.getDirectoryHandle('split-2')).put('00001.gguf', new Uint8Array([1, 2, 3]));
  await add('uncommitted-3', null, new Uint8Array(9)); // no meta.json: a commit cut short
  await add('other-4', meta('someone-else', [4]), new Uint8Array(4)); // meta names another key
  await partial.getDirectoryHandle('m.gguf-1', { create: true });
  return { root, models, partial };
}

test('entryOf accepts the worker meta.json and rejects what is not one', () => {
  assert.deepEqual(entryOf('k', meta('k', [3, 4])), { id: 'k', url: 'https://example.com/models/m.gguf', name: 'm.gguf', size: 7, cachedAt: '2026-12-02T01:00:00Z', shards: 2 });
  assert.equal(entryOf('k', meta('j', [3])), null);
  assert.equal(entryOf('k', { ...meta('k', [3]), version: 2 }), null);
  assert.equal(entryOf('k', { ...meta('k', [3]), sizes: [-1] }), null);
  assert.equal(entryOf('k', null), null);
});

test('ModelCache lists, opens and deletes entries of the shared layout', async () => {
  const { root, models, partial } = await layout();
  await withStorage(root, async () => {
    const c = new ModelCache();
    assert.deepEqual((await c.list()).map((e) => e.id), ['m.gguf-1', 'split-2']);
    assert.equal((await c.get('m.gguf-1')).size, 4);
    assert.equal(await c.get('uncommitted-3'), null);
    const f = await c.open('m.gguf-1');
    assert.equal(f.size, 4);
    await assert.rejects(c.open('split-2'), (e) => e.code === 'invalid-argument' && /files\(id\)/.test(e.message));
    assert.deepEqual((await c.files('split-2')).map((f) => f.size), [4, 3], 'a split entry: its shards in order');
    assert.deepEqual((await c.files('m.gguf-1')).map((f) => f.size), [4]);
    await assert.rejects(c.files('uncommitted-3'), (e) => e.code === 'not-found');
    await assert.rejects(c.open('uncommitted-3'), (e) => e.code === 'not-found');
    await assert.rejects(c.get('../x'), (e) => e.code === 'invalid-argument');
    assert.equal(await c.delete('m.gguf-1'), true);
    assert.equal(models.items.has('m.gguf-1') || partial.items.has('m.gguf-1'), false, 'entry or partial left');
    assert.equal(await c.delete('m.gguf-1'), false);
    assert.equal(await c.clear(), 1);
    assert.equal(models.items.size + partial.items.size, 0);
  });
});

test('ModelCache on an origin without a cache lists nothing', () => withStorage(new FakeDir(), async () => {
  const c = new ModelCache();
  assert.deepEqual(await c.list(), []);
  assert.equal(await c.get('m'), null);
  assert.equal(await c.delete('m'), false);
  assert.equal(await c.clear(), 0);
}));
