// webgguf: run GGUF language models in the browser.
export { Engine, CallStream } from './client.js';
export { EngineError, EngineCrashedError } from './errors.js';
export { BufferPool } from './pool.js';
export { encodeFrame, encodeFrameBytes, decodeFrame, decodeHeader } from './codec.js';
export { GlueDecodeError, GlueEncodeError, Kind, Wire, VERSION } from './wire.js';
export { MessageType } from './glue.gen.js';
