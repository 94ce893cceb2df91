// Split GGUF models: shards named as llama.cpp's llama_split_path writes
// them, PREFIX-00001-of-00003.gguf (five digits each, 1-based).

import { WebGGUFError } from './webgguf-error.js';

const SPLIT = /-(\d{5})-of-(\d{5})\.gguf$/;

/**
 * The shard number (1-based) and count a file name or URL path carries, or
 * null when it names no shard.
 * @param {string} name
 * @returns {{ no: number, count: number } | null}
 */
export function splitOf(name) {
  const m = SPLIT.exec(name);
  if (!m) return null;
  const no = Number(m[1]);
  const count = Number(m[2]);
  return no >= 1 && no <= count ? { no, count } : null;
}

/**
 * The URLs of every shard of the model url names: [url] for a file that is
 * not a shard; for the first shard of a split model, all of them, the
 * others derived as llama_split_path names them (same folder and query).
 * A later shard's URL is an 'invalid-argument': load the first one.
 * @param {string} url an absolute URL
 * @returns {string[]}
 */
export function shardURLs(url) {
  const u = new URL(url);
  const s = splitOf(u.pathname);
  if (!s) return [url];
  if (s.no !== 1) {
    throw new WebGGUFError('invalid-argument', `${url} is shard ${s.no} of ${s.count} of a split model: load its first shard (-00001-of-${String(s.count).padStart(5, '0')}.gguf), which names the others.`);
  }
  const out = [];
  for (let i = 1; i <= s.count; i++) {
    const v = new URL(u.href);
    v.pathname = u.pathname.replace(SPLIT, `-${String(i).padStart(5, '0')}-of-${String(s.count).padStart(5, '0')}.gguf`);
    out.push(v.href);
  }
  return out;
}

/**
 * Files/Blobs of one model in shard order: by the shard number in their
 * names when every one has a name of the same split, else as given.
 * @template {Blob} B
 * @param {B[]} blobs
 * @returns {B[]}
 */
export function orderShards(blobs) {
  const splits = blobs.map((b) => splitOf(/** @type {{ name?: string }} */ (/** @type {unknown} */ (b)).name || ''));
  if (splits.some((s) => !s || s.count !== blobs.length)) return blobs;
  return blobs.map((b, i) => [b, /** @type {{ no: number }} */ (splits[i]).no]).sort((a, b) => Number(a[1]) - Number(b[1])).map(([b]) => /** @type {B} */ (b));
}
