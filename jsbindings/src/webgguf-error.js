// WebGGUFError: the one error type of the public API, with a stable code a
// program can switch on and a message a person can act on.

import { GlueCallError } from './errors.js';

/**
 * Codes of WebGGUFError. Engine error kinds map onto them; anything the
 * engine does not classify is 'internal'.
 */
export const ErrorCode = Object.freeze({
  UnsupportedModel: 'unsupported-model',
  BadFile: 'bad-file',
  Network: 'network',
  Quota: 'quota',
  Aborted: 'aborted',
  GPUUnavailable: 'gpu-unavailable',
  DeviceLost: 'device-lost',
  ContextFull: 'context-full',
  NoModel: 'no-model',
  InvalidArgument: 'invalid-argument',
  OutOfMemory: 'out-of-memory',
  NotFound: 'not-found',
  StorageUnavailable: 'storage-unavailable',
  Crashed: 'crashed',
  Internal: 'internal',
});

/** @type {Set<string>} */
const KNOWN = new Set(Object.values(ErrorCode));
const FROM_KIND = {
  canceled: 'aborted', deadline: 'aborted', not_found: 'not-found', panic: 'internal',
  // The worker's OPFS cache (package opfs) reports "opfs.<kind>".
  'opfs.quota': 'quota', 'opfs.network': 'network', 'opfs.http': 'network', 'opfs.integrity': 'bad-file',
  'opfs.not_found': 'not-found', 'opfs.invalid': 'invalid-argument', 'opfs.unsupported': 'storage-unavailable',
  'opfs.format': 'bad-file', 'opfs.gpu': 'gpu-unavailable', 'opfs.busy': 'internal',
};

/** An error of the webgguf API; code is one of ErrorCode's values. */
export class WebGGUFError extends Error {
  /**
   * @param {import('./index.js').ErrorCodeValue} code one of ErrorCode's values
   * @param {string} message what happened and what to do about it
   * @param {{ cause?: unknown, status?: number }} [options]
   */
  constructor(code, message, options = {}) {
    super(message, options.cause !== undefined ? { cause: options.cause } : undefined);
    this.name = 'WebGGUFError';
    this.code = code;
    /** @type {number | undefined} */
    this.status; // declared for the type checker; set only when given
    if (options.status !== undefined) this.status = options.status;
  }

  /**
   * Turns anything thrown by the engine, fetch, OPFS or an AbortSignal into a WebGGUFError.
   * @param {any} err
   * @returns {WebGGUFError}
   */
  static from(err) {
    if (err instanceof WebGGUFError) return err;
    if (err && err.name === 'AbortError') return new WebGGUFError('aborted', err.message || 'The operation was aborted.', { cause: err });
    if (err && err.name === 'QuotaExceededError') {
      return new WebGGUFError('quota', 'The browser refused to store more data (storage quota exceeded): delete cached models or free disk space.', { cause: err });
    }
    if (err instanceof GlueCallError) {
      const code = /** @type {import('./index.js').ErrorCodeValue} */ (err.kind === 'crashed' ? 'crashed' : KNOWN.has(err.kind) ? err.kind : FROM_KIND[err.kind] || (err.kind.startsWith('decode.') || err.kind.startsWith('encode.') ? 'invalid-argument' : 'internal'));
      // The engine's message may already end with its cause's (an error
      // that is not the worker's own type): say it once.
      const cm = err.cause && err.cause.message;
      const detail = cm && !err.message.includes(cm) ? `${err.message}: ${cm}` : err.message;
      return new WebGGUFError(code, detail, { cause: err, ...(err.status ? { status: err.status } : {}) });
    }
    if (err && (err.name === 'GlueEncodeError')) return new WebGGUFError('invalid-argument', err.message, { cause: err });
    return new WebGGUFError('internal', String((err && err.message) || err), { cause: err });
  }
}
