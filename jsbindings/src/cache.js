// The model cache: GGUF files kept in the Origin Private File System, so a
// model downloaded once loads again without the network (the PWA example).
//
// Layout: webgguf-js/<id>/model.gguf and webgguf-js/<id>/meta.json. meta.json
// is written after the model file is complete, and an entry exists only when
// it does, so an interrupted download never shows up as cached. The file
// itself is written through createWritable(), which commits atomically on
// close() (a swap file until then).
//
// This store runs on the page: it is what engine.models uses when the
// engine build does not serve the worker's own OPFS cache (package opfs,
// glue messages Opfs*; see cache-worker.js), which it prefers.

import { WebGGUFError } from './webgguf-error.js';
import { fetchOK, readBody } from './fetch.js';

const ROOT = 'webgguf-js';
// The id rule is the worker's (package opfs: ValidKey, KeyForURL), case for
// case: testdata/cachekeys.json is checked on both sides.
const ID_RE = /^[A-Za-z0-9._-]{1,128}$/;
const NAME_LEN = 128 - 1 - 32;

/** The absolute URL a cache entry is keyed on and records (new URL(url).href). */
export function absoluteURL(url) {
  return new URL(String(url), globalThis.location ? globalThis.location.href : undefined).href;
}

/**
 * Derives a cache id from a URL: its file name, for people, then "-" and
 * the first 128 bits of SHA-256 of the absolute URL, so that a forged URL
 * cannot share a real one's id. The name is the text after the last '/'
 * before any '?' or '#', byte by byte of its UTF-8: bytes outside
 * [A-Za-z0-9._-] become '_', a leading '.' becomes '_', it is cut to 95
 * bytes, and an empty one is "model".
 */
export async function idFor(url) {
  const href = absoluteURL(url);
  const bytes = new TextEncoder().encode(href);
  let end = bytes.length;
  for (let i = 0; i < bytes.length; i++) {
    if (bytes[i] === 0x3f || bytes[i] === 0x23) { end = i; break; } // '?', '#'
  }
  let start = 0;
  for (let i = 0; i < end; i++) if (bytes[i] === 0x2f) start = i + 1; // '/'
  let name = '';
  for (let i = start; i < Math.min(end, start + NAME_LEN); i++) {
    const c = String.fromCharCode(bytes[i]);
    name += /[A-Za-z0-9._-]/.test(c) ? c : '_';
  }
  if (!name) name = 'model';
  if (name[0] === '.') name = '_' + name.slice(1);
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', bytes));
  const hex = [...digest.slice(0, 16)].map((b) => b.toString(16).padStart(2, '0')).join('');
  return `${name}-${hex}`;
}

/** Whether id is a valid cache id: 1-128 characters of [A-Za-z0-9._-], not starting with '.'. */
export function validId(id) {
  return typeof id === 'string' && ID_RE.test(id) && id[0] !== '.';
}

function checkId(id) {
  if (!validId(id)) {
    throw new WebGGUFError('invalid-argument', `"${id}" is not a model cache id (1-128 letters, digits, . _ -, not starting with '.')`);
  }
}

/** ModelCache keeps GGUF files in OPFS. */
export class ModelCache {
  async root(create = true) {
    if (!globalThis.navigator || !navigator.storage || !navigator.storage.getDirectory) {
      throw new WebGGUFError('storage-unavailable', 'This browser has no Origin Private File System (navigator.storage.getDirectory): models cannot be cached.');
    }
    let dir;
    try {
      dir = await navigator.storage.getDirectory();
      return await dir.getDirectoryHandle(ROOT, { create });
    } catch (err) {
      if (err && err.name === 'NotFoundError') return null;
      throw new WebGGUFError('storage-unavailable', `The model cache cannot be opened: ${err.message} (private windows may not allow storage).`, { cause: err });
    }
  }

  /** Lists complete entries: { id, url, name, size, cachedAt }. */
  async list() {
    const root = await this.root(false);
    if (!root) return [];
    const out = [];
    for await (const [name, handle] of root.entries()) {
      if (handle.kind !== 'directory') continue;
      const meta = await readMeta(handle);
      if (meta) out.push({ ...meta, id: name });
    }
    out.sort((a, b) => a.id.localeCompare(b.id));
    return out;
  }

  /** Returns the entry with this id, or null. */
  async get(id) {
    checkId(id);
    const root = await this.root(false);
    if (!root) return null;
    let dir;
    try {
      dir = await root.getDirectoryHandle(id);
    } catch {
      return null;
    }
    const meta = await readMeta(dir);
    return meta ? { ...meta, id } : null;
  }

  /** Opens a cached model's file (a File: read it in slices or whole). */
  async open(id) {
    checkId(id);
    const root = await this.root(false);
    try {
      const dir = await root.getDirectoryHandle(id);
      if (!(await readMeta(dir))) throw new Error('incomplete');
      return await (await dir.getFileHandle('model.gguf')).getFile();
    } catch (err) {
      throw new WebGGUFError('not-found', `No cached model "${id}": download it first.`, { cause: err });
    }
  }

  /**
   * Downloads url into the cache (replacing an entry of the same id) and
   * returns the entry. onProgress(loaded, total); signal aborts and leaves
   * no entry.
   */
  async download(url, { id, signal, onProgress } = {}) {
    id = id || (await idFor(url));
    checkId(id);
    const res = await fetchOK(url, signal);
    const root = await this.root(true);
    await root.removeEntry(id, { recursive: true }).catch(() => {});
    const dir = await root.getDirectoryHandle(id, { create: true });
    let w;
    try {
      w = await (await dir.getFileHandle('model.gguf', { create: true })).createWritable();
      const size = await readBody(res, { signal, onProgress, onChunk: (c) => w.write(c) });
      await w.close();
      w = null;
      // url is the URL asked for, which the id is derived from and load()
      // compares (a redirect's target differs); the name is the target's.
      const meta = { url: absoluteURL(url), name: decodeURIComponent(new URL(res.url || String(url), location.href).pathname.split('/').pop() || id), size, cachedAt: new Date().toISOString() };
      const mw = await (await dir.getFileHandle('meta.json', { create: true })).createWritable();
      await mw.write(JSON.stringify(meta));
      await mw.close();
      return { ...meta, id };
    } catch (err) {
      if (w) await w.abort().catch(() => {});
      await root.removeEntry(id, { recursive: true }).catch(() => {});
      throw WebGGUFError.from(err);
    }
  }

  /** Deletes an entry; resolves to whether it existed. */
  async delete(id) {
    checkId(id);
    const root = await this.root(false);
    if (!root) return false;
    try {
      await root.removeEntry(id, { recursive: true });
      return true;
    } catch (err) {
      if (err && err.name === 'NotFoundError') return false;
      throw WebGGUFError.from(err);
    }
  }

  /** Deletes every entry; resolves to how many there were. */
  async clear() {
    const root = await this.root(false);
    if (!root) return 0;
    let n = 0;
    const names = [];
    for await (const [name] of root.entries()) names.push(name);
    for (const name of names) {
      await root.removeEntry(name, { recursive: true });
      n++;
    }
    return n;
  }

  /** Storage use and quota of the origin; persist asks the browser to keep the data. */
  async estimate({ persist = false } = {}) {
    if (!globalThis.navigator || !navigator.storage || !navigator.storage.estimate) {
      throw new WebGGUFError('storage-unavailable', 'This browser cannot report storage use (navigator.storage.estimate).');
    }
    let persisted = navigator.storage.persisted ? await navigator.storage.persisted() : false;
    if (persist && !persisted && navigator.storage.persist) persisted = await navigator.storage.persist();
    const { usage = 0, quota = 0 } = await navigator.storage.estimate();
    return { usage, quota, persisted };
  }
}

async function readMeta(dir) {
  try {
    const f = await (await dir.getFileHandle('meta.json')).getFile();
    const m = JSON.parse(await f.text());
    if (!m || typeof m.size !== 'number') return null;
    return { url: String(m.url || ''), name: String(m.name || ''), size: m.size, cachedAt: String(m.cachedAt || '') };
  } catch {
    return null;
  }
}
