// webgguf: run GGUF language models in the browser. The main entry is the
// public API only; the GLUE protocol client lives at 'webgguf/protocol'.
export { createEngine, WebGGUFEngine } from './api.js';
export { WebGGUFError, ErrorCode } from './webgguf-error.js';
export { ModelCache } from './cache.js';
