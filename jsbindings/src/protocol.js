// webgguf/protocol: the low-level GLUE client under the public API. Tools,
// tests and other bindings use it to speak the engine worker's wire
// protocol directly; applications use the main entry (createEngine).
export { GlueClient, CallStream } from './client.js';
export { GlueCallError, GlueCrashedError } from './errors.js';
export { BufferPool } from './pool.js';
export { encodeFrame, encodeFrameBytes, decodeFrame, decodeHeader } from './codec.js';
export { GlueDecodeError, GlueEncodeError, Kind, Wire, VERSION } from './wire.js';
export { MessageType } from './glue.gen.js';
