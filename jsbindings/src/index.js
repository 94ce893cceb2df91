// webgguf: run GGUF language models in the browser.
export { createEngine, WebGGUFEngine } from './api.js';
export { WebGGUFError, ErrorCode } from './webgguf-error.js';
export { ModelCache } from './cache.js';
// The low-level client: GLUE calls to the engine worker.
export { Engine, CallStream } from './client.js';
export { EngineError, EngineCrashedError } from './errors.js';
export { BufferPool } from './pool.js';
export { encodeFrame, encodeFrameBytes, decodeFrame, decodeHeader } from './codec.js';
export { GlueDecodeError, GlueEncodeError, Kind, Wire, VERSION } from './wire.js';
export { MessageType } from './glue.gen.js';
