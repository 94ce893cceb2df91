// Types of webgguf/protocol: the low-level GLUE client under the public API.
// Message types come from glue.gen.d.ts.
import type { Messages, MessageInits, MessageName } from './glue.gen.js';
export { MessageType } from './glue.gen.js';
export type * from './glue.gen.js';

/** Options of a GlueClient. URLs default to the package's dist/ folder. */
export interface GlueClientOptions {
  /** URL of the worker bootstrap (worker.js); spawned as a module worker. */
  workerURL?: string | URL;
  /** URL of the engine's .wasm. */
  wasmURL?: string | URL;
  /** URL of Go's wasm_exec.js. */
  execURL?: string | URL;
  /** URL of webgpu-runtime.js, the WebGPU runtime the worker imports as a script (so no eval is needed under a strict CSP). */
  gpuURL?: string | URL;
  /** Buffer pool to share between engines. */
  pool?: BufferPool;
  /** Worker constructor (tests). */
  Worker?: new (url: string, options: WorkerOptions) => Worker;
}

/** Options of one call. */
export interface CallOptions {
  /** Cancels the call: it rejects with the signal's reason and the engine's handler sees its context canceled. */
  signal?: AbortSignal;
  /** Receives the call's server-push events. */
  onEvent?: (name: MessageName, msg: Messages[MessageName]) => void;
}

/** One server-push event of a stream. */
export interface StreamEvent {
  name: MessageName;
  msg: Messages[MessageName];
}

/** The GLUE client of one Web Worker running the Go engine. */
export declare class GlueClient {
  constructor(options?: GlueClientOptions);
  /** 'starting' | 'ready' | 'crashed' | 'closed' */
  readonly state: string;
  /** Resolves when the engine serves; rejects with GlueCrashedError if it dies first. */
  readonly ready: Promise<void>;
  readonly pool: BufferPool;
  /** Sends a request; resolves with the response message. */
  call<N extends MessageName>(type: N, msg?: MessageInits[N], options?: CallOptions): Promise<Messages[MessageName]>;
  /** Sends a request whose events are read with for await; the response is in result. */
  stream<N extends MessageName>(type: N, msg?: MessageInits[N], options?: Pick<CallOptions, 'signal'>): CallStream;
  /** Returns the buffer a decoded message's byte/array views live in to the pool; the views are invalid afterwards. */
  release(msg: object): void;
  /** Hands Files/Blobs to the engine under id (structured clone, no bytes copied) for a ModelLoadRequest's blobID; an empty list forgets the id. */
  postBlobs(id: string, blobs: ArrayLike<Blob>): void;
  /** Subscribes to engine-wide events; returns an unsubscribe function. */
  on(name: 'event', fn: (ev: StreamEvent) => void): () => void;
  on(name: 'protocolError', fn: (err: Error) => void): () => void;
  on(name: 'crash', fn: (err: GlueCrashedError) => void): () => void;
  /** Stops the worker; pending calls reject with GlueCrashedError. */
  terminate(): void;
  /** Starts a fresh worker, after a crash or to replace a running one. */
  restart(): Promise<void>;
  /** Posts a hand-made frame (protocol tests); with id, resolves/rejects with the engine's answer to that id. */
  injectFrame(buffer: ArrayBuffer, id?: number): Promise<unknown>;
}

/** Async iterator over a call's events. Leaving the loop early cancels the call. */
export declare class CallStream implements AsyncIterableIterator<StreamEvent> {
  readonly id: number;
  readonly result: Promise<Messages[MessageName]>;
  next(): Promise<IteratorResult<StreamEvent>>;
  return(): Promise<IteratorResult<StreamEvent>>;
  [Symbol.asyncIterator](): CallStream;
}

/** A failed engine call: kind is the engine's error class, cause its wrapped error. */
export declare class GlueCallError extends Error {
  constructor(kind: string, message: string, cause?: Error & { kind?: string }, status?: number);
  readonly kind: string;
  readonly cause?: Error & { kind?: string };
  /** HTTP status of the engine's failed fetch, when it had one. */
  readonly status?: number;
  /** Builds a GlueCallError from a decoded GLUE Error message. */
  static fromWire(e: { kind: string; message: string; cause: string; causeKind: string; status: number }): GlueCallError;
}

/** The engine died (worker error, Go exit, failed start) or was terminated; kind is 'crashed'. */
export declare class GlueCrashedError extends GlueCallError {
  constructor(message: string);
}

/** A frame that failed to decode; code/field/offset match the Go decoder's. */
export declare class GlueDecodeError extends Error {
  readonly kind: string;
  readonly code: string;
  readonly msgName: string;
  readonly field: string;
  readonly offset: number;
  readonly detail: string;
}

/** A value that cannot be encoded. */
export declare class GlueEncodeError extends Error {
  readonly kind: string;
  readonly code: string;
  readonly field: string;
}

/** Size-classed pool of reusable ArrayBuffers. */
export declare class BufferPool {
  constructor(options?: { maxPerClass?: number; maxBytes?: number });
  take(n: number): ArrayBuffer;
  give(buf: ArrayBuffer): void;
  readonly hits: number;
  readonly misses: number;
}

/** A decoded frame. */
export interface Frame {
  kind: number;
  type: number;
  name: MessageName;
  id: number;
  length: number;
  msg: Messages[MessageName];
}

export declare function encodeFrame<N extends MessageName>(kind: number, id: number, type: N | number, msg: MessageInits[N], pool?: BufferPool): { buffer: ArrayBuffer; length: number };
export declare function encodeFrameBytes<N extends MessageName>(kind: number, id: number, type: N | number, msg: MessageInits[N]): Uint8Array;
export declare function decodeFrame(bytes: ArrayBuffer | Uint8Array): Frame;
export declare function decodeHeader(bytes: ArrayBuffer | Uint8Array): { version: number; kind: number; flags: number; type: number; id: number; length: number };
export declare const Kind: { readonly Request: 1; readonly Response: 2; readonly Event: 3; readonly Error: 4; readonly Cancel: 5 };
export declare const Wire: { readonly Bool: 1; readonly I32: 2; readonly U32: 3; readonly I64: 4; readonly F32: 5; readonly F64: 6; readonly String: 7; readonly Bytes: 8; readonly ARRAY: 0x80 };
export declare const VERSION: number;
