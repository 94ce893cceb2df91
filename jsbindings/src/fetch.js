// Model downloads: fetch with byte progress and cancellation, errors as
// WebGGUFError('network' | 'aborted').

import { WebGGUFError } from './webgguf-error.js';

/**
 * Why a fetch can fail without any response: browsers report a refused
 * connection and a CORS refusal alike. The worker's downloads say the same
 * (package opfs, noResponse).
 */
export const NO_RESPONSE_HINT = "the server is unreachable, or it does not let this page's origin read the file; " +
  'a model on another origin must be served with CORS headers: Access-Control-Allow-Origin, ' +
  'and Access-Control-Expose-Headers for Content-Length, Content-Range and ETag';

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
    throw new WebGGUFError('network', `Could not fetch ${url} (${err.message}): ${NO_RESPONSE_HINT}.`, { cause: err });
  }
  if (!res.ok) {
    throw new WebGGUFError('network', `Fetching ${url} failed with HTTP ${res.status} ${res.statusText}.`, { status: res.status });
  }
  return res;
}

/** The Content-Length of res, or undefined when it has none. */
function contentLength(res) {
  const h = res.headers.get('content-length');
  const n = h === null ? NaN : Number(h);
  return Number.isSafeInteger(n) && n >= 0 ? n : undefined;
}

/**
 * Reads a Response body in chunks, calling onChunk(chunk) and
 * onProgress(loaded, total) for each; total is undefined when unknown.
 */
export async function readBody(res, { signal, onChunk, onProgress }) {
  const total = contentLength(res);
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
/**
 * @param {string} url
 * @param {{ signal?: AbortSignal, onProgress?: (loaded: number, total: number | undefined) => void }} [options]
 */
export async function fetchBytes(url, { signal, onProgress } = {}) {
  const res = await fetchOK(url, signal);
  let buf = new Uint8Array(contentLength(res) || 1 << 20);
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
