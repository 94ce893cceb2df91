// WorkerModelCache: the model cache as engine.models sees it. Listing,
// downloads (resumable, checked by the engine before they are committed)
// and deletes go through the engine worker (glue messages Opfs*), which
// owns the files while it reads or writes them; cached files are opened
// and storage estimated on the page (ModelCache), from the same OPFS
// layout (cache.js).

import { WebGGUFError } from './webgguf-error.js';
import { ModelCache, absoluteURL, entryOf, idFor } from './cache.js';

/** WorkerModelCache keeps models in the engine worker's OPFS cache. */
export class WorkerModelCache extends ModelCache {
  /** @param {(type: string, msg: object, signal?: AbortSignal, onEvent?: Function) => Promise<any>} call */
  constructor(call) {
    super();
    this.call = call;
  }

  async list() {
    const r = await this.call('OpfsListRequest', {});
    const out = [];
    r.keys.forEach((key, i) => {
      let meta = null;
      try { meta = JSON.parse(r.metas[i] || 'null'); } catch { /* listed without details */ }
      out.push(entryOf(key, meta) || { id: key, url: '', name: key, size: Number(r.sizes[i]), cachedAt: '', shards: 1 });
    });
    out.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    return out;
  }

  async get(id) {
    return (await this.list()).find((m) => m.id === id) || null;
  }

  /**
   * Downloads a model into the cache: url, or every shard of a split model
   * (urls, in order; the entry is keyed on the first). The worker checks
   * all shards before it commits the entry.
   * @param {string | string[]} url
   * @param {{ id?: string, signal?: AbortSignal, onProgress?: (loaded: number, total: number | undefined) => void }} [options]
   */
  async download(url, { id, signal, onProgress } = {}) {
    const urls = (Array.isArray(url) ? url : [url]).map(absoluteURL);
    const abs = urls[0];
    const key = id || (await idFor(abs));
    await this.call('OpfsDownloadRequest', { shardURLs: urls, key }, signal, (ev, msg) => {
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
}
