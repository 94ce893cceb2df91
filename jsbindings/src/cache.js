// The model cache: GGUF files in the Origin Private File System, so a model
// downloaded once loads again without the network (the PWA example). The
// engine worker writes it (package opfs: resumable Range downloads, each
// file checked by the engine before it is committed); the page reads the
// same layout:
//
//   webgguf/models/<id>/00000.gguf …  the model's shards
//   webgguf/models/<id>/meta.json    the commit record, written last: an
//                                    entry exists only when it does
//   webgguf/partial/<id>/…           downloads in progress
//
// ModelCache works on the page without an engine (list, open, delete,
// clear, estimate). Downloads need one (engine.models.download, load(url)),
// since only the engine can tell whether a file is a model it runs.

import { WebGGUFError } from './webgguf-error.js';

const TOP = 'webgguf';
// The id rule is the worker's (package opfs: ValidKey, KeyForURL), case for
// case: testdata/cachekeys.json is checked on both sides.
const ID_RE = /^[A-Za-z0-9._-]{1,128}$/;
const NAME_LEN = 128 - 1 - 32;
const MAX_META = 1 << 20; // opfs.MaxMetaBytes

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

/** The file name of shard i inside an entry (opfs.ShardName). */
export function shardName(i) {
  return `${String(i).padStart(5, '0')}.gguf`;
}

/**
 * The public entry of a commit record (meta.json, opfs.Meta) of key: null
 * when the record is not one (a commit cut short, another key's).
 */
export function entryOf(key, meta) {
  if (!meta || meta.version !== 1 || meta.key !== key || !Array.isArray(meta.urls) || !Array.isArray(meta.sizes) ||
    meta.urls.length === 0 || meta.sizes.length !== meta.urls.length || !meta.sizes.every((s) => Number.isSafeInteger(s) && s >= 0)) {
    return null;
  }
  const url = String(meta.urls[0]);
  let name = key;
  try { name = decodeURIComponent(new URL(url).pathname.split('/').pop() || '') || key; } catch { /* keep the key */ }
  return { id: key, url, name, size: meta.sizes.reduce((a, b) => a + b, 0), cachedAt: String(meta.created || ''), shards: meta.urls.length };
}

/** ModelCache reads and manages the model cache from the page. */
export class ModelCache {
  /** The folder webgguf/<name> (models or partial); null when it does not exist and create is false. */
  async folder(name, create = false) {
    if (!globalThis.navigator || !navigator.storage || !navigator.storage.getDirectory) {
      throw new WebGGUFError('storage-unavailable', 'This browser has no Origin Private File System (navigator.storage.getDirectory): models cannot be cached.');
    }
    try {
      const root = await navigator.storage.getDirectory();
      return await (await root.getDirectoryHandle(TOP, { create })).getDirectoryHandle(name, { create });
    } catch (err) {
      if (err && (err.name === 'NotFoundError' || err.name === 'TypeMismatchError')) return null;
      throw new WebGGUFError('storage-unavailable', `The model cache cannot be opened: ${err.message} (private windows may not allow storage).`, { cause: err });
    }
  }

  /** Lists complete entries: { id, url, name, size, cachedAt, shards }, by id. */
  async list() {
    const models = await this.folder('models');
    if (!models) return [];
    const out = [];
    for await (const [name, handle] of models.entries()) {
      if (handle.kind !== 'directory' || !validId(name)) continue;
      const e = entryOf(name, await readMeta(handle));
      if (e) out.push(e);
    }
    out.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    return out;
  }

  /** Returns the entry with this id, or null. */
  async get(id) {
    checkId(id);
    const dir = await this.entryDir(id);
    return dir ? entryOf(id, await readMeta(dir)) : null;
  }

  async entryDir(id) {
    const models = await this.folder('models');
    if (!models) return null;
    try {
      return await models.getDirectoryHandle(id);
    } catch {
      return null;
    }
  }

  /** Opens a cached model's file (a File: read it in slices or whole); a split model's is files(id). */
  async open(id) {
    const files = await this.files(id);
    if (files.length > 1) throw new WebGGUFError('invalid-argument', `"${id}" is a split model (${files.length} shards): read its files with files(id).`);
    return files[0];
  }

  /**
   * The files of a cached model in shard order: one, or every shard of a
   * split model (load(files) takes them as they are).
   * @param {string} id
   * @returns {Promise<File[]>}
   */
  async files(id) {
    checkId(id);
    const dir = await this.entryDir(id);
    const meta = dir && (await readMeta(dir));
    const entry = dir && entryOf(id, meta);
    if (!dir || !entry) throw new WebGGUFError('not-found', `No cached model "${id}": download it first.`);
    const out = [];
    for (let i = 0; i < entry.shards; i++) {
      let file;
      try {
        file = await (await dir.getFileHandle(shardName(i))).getFile();
      } catch (err) {
        throw new WebGGUFError('not-found', `The cached model "${id}" cannot be read (shard ${i + 1} of ${entry.shards}): ${err.message}`, { cause: err });
      }
      const want = meta.sizes[i];
      if (file.size !== want) {
        const which = entry.shards > 1 ? ` shard ${i + 1} of ${entry.shards}` : '';
        throw new WebGGUFError('bad-file', `The cached model "${id}"${which} has ${file.size} bytes, its record says ${want}: delete it and download it again.`);
      }
      out.push(file);
    }
    return out;
  }

  /**
   * Deletes an entry and any download of it in progress; resolves to
   * whether the entry existed. The commit record goes first, so a delete
   * cut short leaves no entry (the worker's rule, opfs.Cache.Delete).
   */
  async delete(id) {
    checkId(id);
    let existed = false;
    const dir = await this.entryDir(id);
    if (dir) {
      existed = !!entryOf(id, await readMeta(dir));
      await removeIn(dir, 'meta.json');
      await removeIn(await this.folder('models'), id);
    }
    const partial = await this.folder('partial');
    if (partial) await removeIn(partial, id);
    return existed;
  }

  /** Deletes every entry and download in progress; resolves to how many entries there were. */
  async clear() {
    const n = (await this.list()).length;
    for (const name of ['models', 'partial']) {
      const dir = await this.folder(name);
      if (!dir) continue;
      const names = [];
      for await (const [k] of dir.entries()) names.push(k);
      for (const k of names) await removeIn(dir, k);
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

/** Removes name (recursively) from dir; a missing one is no error. */
async function removeIn(dir, name) {
  try {
    await dir.removeEntry(name, { recursive: true });
  } catch (err) {
    if (err && err.name === 'NotFoundError') return;
    throw new WebGGUFError(err && err.name === 'NoModificationAllowedError' ? 'storage-unavailable' : 'internal',
      `The model cache entry "${name}" cannot be removed (the engine may be reading it): ${err.message}`, { cause: err });
  }
}

/** The parsed meta.json of an entry folder, or null. */
async function readMeta(dir) {
  try {
    const f = await (await dir.getFileHandle('meta.json')).getFile();
    if (f.size > MAX_META) return null;
    return JSON.parse(await f.text());
  } catch {
    return null;
  }
}
