// WorkerModelCache: the model cache kept by the engine worker's own OPFS
// store (package opfs, glue messages Opfs*: resumable, verified downloads
// with Range requests). It has ModelCache's interface; engine.models uses it
// whenever the engine serves those messages. Cached files are read back on
// the page from OPFS (webgguf/models/<key>/00000.gguf), so load() takes the
// same path for both stores.

import { WebGGUFError } from './webgguf-error.js';
import { idFor } from './cache.js';

const SHARD0 = '00000.gguf';

/** WorkerModelCache keeps models in the engine worker's OPFS cache. */
export class WorkerModelCache {
  /** @param {(type: string, msg: object, signal?: AbortSignal, onEvent?: Function) => Promise<any>} call */
  constructor(call) {
    this.call = call;
  }

  async list() {
    const r = await this.call('OpfsListRequest', {});
    const out = [];
    r.keys.forEach((key, i) => {
      let meta = {};
      try { meta = JSON.parse(r.metas[i] || '{}'); } catch { /* listed without details */ }
      const url = (meta.urls && meta.urls[0]) || '';
      let name = key;
      try { name = decodeURIComponent(new URL(url).pathname.split('/').pop()) || key; } catch { /* keep the key */ }
      out.push({ id: key, url, name, size: Number(r.sizes[i]), cachedAt: meta.created || '', shards: (meta.urls || []).length || 1 });
    });
    out.sort((a, b) => a.id.localeCompare(b.id));
    return out;
  }

  async get(id) {
    return (await this.list()).find((m) => m.id === id) || null;
  }

  async open(id) {
    const entry = await this.get(id);
    if (!entry) throw new WebGGUFError('not-found', `No cached model "${id}": download it first.`);
    if (entry.shards > 1) throw new WebGGUFError('unsupported-model', `"${id}" is a split model (${entry.shards} shards): not supported yet.`);
    try {
      const root = await navigator.storage.getDirectory();
      const dir = await (await (await root.getDirectoryHandle('webgguf')).getDirectoryHandle('models')).getDirectoryHandle(id);
      return await (await dir.getFileHandle(SHARD0)).getFile();
    } catch (err) {
      throw new WebGGUFError('not-found', `The cached model "${id}" cannot be read: ${err.message}`, { cause: err });
    }
  }

  async download(url, { id, signal, onProgress } = {}) {
    const abs = new URL(String(url), globalThis.location ? location.href : undefined).href;
    const key = id || (await idFor(abs));
    await this.call('OpfsDownloadRequest', { shardURLs: [abs], key }, signal, (ev, msg) => {
      // allTotal -1: a response without Content-Length (total unknown).
      if (ev === 'OpfsProgress' && onProgress && msg.stage === 'download') onProgress(Number(msg.allDone), msg.allTotal < 0 ? undefined : Number(msg.allTotal));
    });
    const entry = await this.get(key);
    if (!entry) throw new WebGGUFError('internal', `the download of ${abs} left no cache entry`);
    return entry;
  }

  async delete(id) {
    return (await this.call('OpfsDeleteRequest', { key: id })).existed;
  }

  async clear() {
    return (await this.call('OpfsClearRequest', {})).removed;
  }

  async estimate({ persist = false } = {}) {
    const r = await this.call('OpfsEstimateRequest', { persist });
    return { usage: Number(r.usage), quota: Number(r.quota), persisted: r.persisted };
  }
}
