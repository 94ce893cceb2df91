// Model downloads: fetch with byte progress and cancellation, errors as
// WebGGUFError('network' | 'aborted').

import { WebGGUFError } from './webgguf-error.js';

/**
 * Fetches url and returns its Response after checking the status; a
 * failure is a WebGGUFError with code 'network' (status set for HTTP errors).
 */
export async function fetchOK(url, signal) {
  let res;
  try {
    res = await fetch(url, { signal });
  } catch (err) {
    if (signal && signal.aborted) throw WebGGUFError.from(signal.reason);
    throw new WebGGUFError('network', `Could not fetch ${url}: ${err.message}. Check the URL and your connection (and that the server allows CORS).`, { cause: err });
  }
  if (!res.ok) {
    throw new WebGGUFError('network', `Fetching ${url} failed with HTTP ${res.status} ${res.statusText}.`, { status: res.status });
  }
  return res;
}

/**
 * Reads a Response body in chunks, calling onChunk(chunk) and
 * onProgress(loaded, total) for each; total is 0 when unknown.
 */
export async function readBody(res, { signal, onChunk, onProgress }) {
  const total = Number(res.headers.get('content-length')) || 0;
  const reader = res.body.getReader();
  let loaded = 0;
  try {
    for (;;) {
      if (signal && signal.aborted) throw signal.reason;
      const { done, value } = await reader.read();
      if (done) break;
      loaded += value.byteLength;
      await onChunk(value);
      if (onProgress) onProgress(loaded, total);
    }
  } catch (err) {
    reader.cancel().catch(() => {});
    if (signal && signal.aborted) throw WebGGUFError.from(signal.reason);
    if (err instanceof WebGGUFError || (err && err.name === 'QuotaExceededError')) throw WebGGUFError.from(err);
    throw new WebGGUFError('network', `The download of ${res.url} broke off after ${loaded} bytes: ${err.message}`, { cause: err });
  }
  return loaded;
}

/** Downloads url into memory; returns its bytes. */
export async function fetchBytes(url, { signal, onProgress } = {}) {
  const res = await fetchOK(url, signal);
  const total = Number(res.headers.get('content-length')) || 0;
  let buf = new Uint8Array(total || 1 << 20);
  let n = 0;
  await readBody(res, {
    signal,
    onProgress,
    onChunk(c) {
      if (n + c.byteLength > buf.byteLength) {
        const bigger = new Uint8Array(Math.max(buf.byteLength * 2, n + c.byteLength));
        bigger.set(buf.subarray(0, n));
        buf = bigger;
      }
      buf.set(c, n);
      n += c.byteLength;
    },
  });
  return buf.subarray(0, n);
}
