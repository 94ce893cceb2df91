// Split GGUF names (llama.cpp's llama_split_path: PREFIX-%05d-of-%05d.gguf).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { splitOf, shardURLs, orderShards } from '../src/split.js';

test('splitOf reads llama_split_path names, and only those', () => {
  assert.deepEqual(splitOf('m-00002-of-00003.gguf'), { no: 2, count: 3 });
  assert.equal(splitOf('m.gguf'), null);
  assert.equal(splitOf('m-0002-of-0003.gguf'), null); // four digits: not llama.cpp's
  assert.equal(splitOf('m-00004-of-00003.gguf'), null);
  assert.equal(splitOf('m-00000-of-00003.gguf'), null);
});

test('shardURLs derives every shard from the first, keeping folder and query', () => {
  assert.deepEqual(shardURLs('https://h/x/m.gguf?t=1'), ['https://h/x/m.gguf?t=1']);
  assert.deepEqual(shardURLs('https://h/x/tiny-00001-of-00003.gguf?t=1'), [
    'https://h/x/tiny-00001-of-00003.gguf?t=1', 'https://h/x/tiny-00002-of-00003.gguf?t=1', 'https://h/x/tiny-00003-of-00003.gguf?t=1',
  ]);
  assert.throws(() => shardURLs('https://h/x/tiny-00002-of-00003.gguf'), (e) => e.code === 'invalid-argument' && /shard 2 of 3/.test(e.message));
});

test('orderShards sorts Files by their shard number, else keeps the order', () => {
  const f = (name) => ({ name, size: 1 });
  const got = orderShards([f('a-00002-of-00002.gguf'), f('a-00001-of-00002.gguf')]).map((b) => b.name);
  assert.deepEqual(got, ['a-00001-of-00002.gguf', 'a-00002-of-00002.gguf']);
  assert.deepEqual(orderShards([f('y'), f('x')]).map((b) => b.name), ['y', 'x']);
  assert.deepEqual(orderShards([f('a-00002-of-00003.gguf'), f('a-00001-of-00003.gguf')]).map((b) => b.name), ['a-00002-of-00003.gguf', 'a-00001-of-00003.gguf']);
});
