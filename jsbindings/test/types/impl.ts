// Compiled with tsc --noEmit (checkJs) by test/types.test.js: each value the
// .d.ts files declare must be what the JavaScript implements, so the typings
// cannot drift from the code. The JS modules' types are inferred from the
// code and its JSDoc; every assignment below fails to compile when the
// implementation lacks a declared member or returns another shape.
import type * as Pub from '../../src/index.js';
import type * as Proto from '../../src/protocol.js';
import * as api from '../../src/api.js';
import * as errs from '../../src/webgguf-error.js';
import * as cache from '../../src/cache.js';
import * as client from '../../src/client.js';
import * as glueErrs from '../../src/errors.js';
import * as pool from '../../src/pool.js';
import * as codec from '../../src/codec.js';
import * as wire from '../../src/wire.js';
import * as gen from '../../src/glue.gen.js';

// The instance side of a class (its constructor arguments are internal).
declare function instance<C extends abstract new (...args: any) => any>(c: C): InstanceType<C>;

// Main entry.
export const createEngine: typeof Pub.createEngine = api.createEngine;
export const engine: Pub.WebGGUFEngine = instance(api.WebGGUFEngine);
export const WebGGUFError: typeof Pub.WebGGUFError = errs.WebGGUFError;
export const ErrorCode: typeof Pub.ErrorCode = errs.ErrorCode;
export const modelCache: Pub.ModelCache = instance(cache.ModelCache);

// webgguf/protocol.
export const GlueClient: typeof Proto.GlueClient = client.GlueClient;
export const callStream: Proto.CallStream = instance(client.CallStream);
export const GlueCallError: typeof Proto.GlueCallError = glueErrs.GlueCallError;
export const GlueCrashedError: typeof Proto.GlueCrashedError = glueErrs.GlueCrashedError;
export const BufferPool: typeof Proto.BufferPool = pool.BufferPool;
export const encodeFrame: typeof Proto.encodeFrame = codec.encodeFrame;
export const encodeFrameBytes: typeof Proto.encodeFrameBytes = codec.encodeFrameBytes;
export const decodeFrame: typeof Proto.decodeFrame = codec.decodeFrame;
export const decodeHeader: typeof Proto.decodeHeader = codec.decodeHeader;
export const GlueDecodeError: typeof Proto.GlueDecodeError = wire.GlueDecodeError;
export const GlueEncodeError: typeof Proto.GlueEncodeError = wire.GlueEncodeError;
export const Kind: typeof Proto.Kind = wire.Kind;
export const Wire: typeof Proto.Wire = wire.Wire;
export const VERSION: typeof Proto.VERSION = wire.VERSION;
export const MessageType: typeof Proto.MessageType = gen.MessageType;
