// Types of webgguf's main entry: createEngine, the OpenAI-shaped engine, its
// errors and the model cache. The GLUE client is in protocol.d.ts
// ('webgguf/protocol').
import type { GlueClient } from './protocol.js';

/** Codes of WebGGUFError. */
export type ErrorCodeValue =
  | 'unsupported-model' | 'bad-file' | 'network' | 'quota' | 'aborted' | 'gpu-unavailable' | 'device-lost'
  | 'context-full' | 'no-model' | 'invalid-argument' | 'out-of-memory' | 'not-found' | 'storage-unavailable'
  | 'crashed' | 'internal';

/** The codes of WebGGUFError by name. */
export declare const ErrorCode: {
  readonly UnsupportedModel: 'unsupported-model'; readonly BadFile: 'bad-file'; readonly Network: 'network';
  readonly Quota: 'quota'; readonly Aborted: 'aborted'; readonly GPUUnavailable: 'gpu-unavailable';
  readonly DeviceLost: 'device-lost'; readonly ContextFull: 'context-full'; readonly NoModel: 'no-model';
  readonly InvalidArgument: 'invalid-argument'; readonly OutOfMemory: 'out-of-memory'; readonly NotFound: 'not-found';
  readonly StorageUnavailable: 'storage-unavailable'; readonly Crashed: 'crashed'; readonly Internal: 'internal';
};

/** Every error of the public API. Switch on code; message says what to do. */
export declare class WebGGUFError extends Error {
  constructor(code: ErrorCodeValue, message: string, options?: { cause?: unknown; status?: number });
  readonly code: ErrorCodeValue;
  /** HTTP status of a failed download or load of a URL (code 'network'), e.g. 404. */
  readonly status?: number;
  /** Wraps anything thrown by the engine, fetch, OPFS or an AbortSignal. */
  static from(err: unknown): WebGGUFError;
}

/** A logger: a console-like object, or a function of (level, message) with slog levels (-4 debug, 0 info, 4 warn, 8 error). */
export type Logger = Pick<Console, 'debug' | 'info' | 'warn' | 'error'> | ((level: number, message: string) => void);

/** Options of createEngine. */
export interface CreateEngineOptions {
  /** Folder holding worker.js, engine.wasm, wasm_exec.js and webgpu-runtime.js (default: the package's dist/, found from import.meta.url). */
  assetBaseURL?: string | URL;
  /** Individual asset URLs; each overrides assetBaseURL. */
  workerURL?: string | URL;
  wasmURL?: string | URL;
  execURL?: string | URL;
  /** The WebGPU runtime; without it the engine runs on the CPU under a CSP that refuses 'unsafe-eval'. */
  gpuURL?: string | URL;
  /** Compute backend preferred by load(): 'auto' (WebGPU on a hardware adapter, else CPU: software adapters such as SwiftShader are passed over, with a logged warning), 'webgpu' or 'cpu'. Default 'auto'. */
  backend?: 'auto' | 'webgpu' | 'cpu';
  /** Receives the engine's log lines and crash notices. */
  logger?: Logger;
  /** Worker constructor (tests). */
  Worker?: new (url: string, options: WorkerOptions) => Worker;
}

/** A progress report of load() or models.download(). */
export interface LoadProgress {
  /**
   * 'download' (network, into the cache; or the page fetching a URL whose server does not answer Range
   * requests), 'upload' (weights into the backend: read by the engine from the cache, a URL or a File/Blob,
   * or sent as bytes).
   */
  stage: 'download' | 'upload';
  /** Bytes done so far. */
  loaded: number;
  /** Bytes in all; undefined when unknown (a download whose server sent no Content-Length). */
  total: number | undefined;
  /** loaded / total in [0, 1]; undefined when total is unknown: show an indeterminate progress bar. */
  fraction: number | undefined;
}

/**
 * What load() accepts: a URL, a cached model's id ({ id } or a bare id), a File/Blob, bytes, or a one-element list
 * of these. A split GGUF model (shards named as llama.cpp's llama_split_path does, PREFIX-00001-of-00003.gguf):
 * the URL of its first shard (the others are derived from it), the list of its shards' URLs or of its Files (in
 * shard order, or named so), or its cache id.
 */
export type ModelSource = string | { id: string } | Blob | ArrayBuffer | Uint8Array | string[] | Blob[];

/** Options of load(). */
export interface LoadOptions {
  onProgress?: (p: LoadProgress) => void;
  signal?: AbortSignal;
  /**
   * Context length in tokens (default: the model's training context, at
   * most 4096, halved until the model fits in memory: wasm's 4 GiB on the
   * CPU backend). A contextSize given here that does not fit fails with
   * 'out-of-memory' before anything is allocated.
   */
  contextSize?: number;
  /** Overrides createEngine's backend for this model. */
  backend?: 'auto' | 'webgpu' | 'cpu';
  /** Keep a URL's download in the model cache and load it from there next time (default true). */
  cache?: boolean;
  /** Name for bytes without one. */
  name?: string;
}

/** The loaded model. */
export interface ModelInfo {
  name: string;
  arch: string;
  /** The backend the model runs on: 'cpu' or 'webgpu'. */
  backend: string;
  contextSize: number;
  trainContextSize: number;
  vocabSize: number;
  layers: number;
  embeddingSize: number;
  fileBytes: number;
  /** Memory the backend holds: weights, KV cache, activations. */
  backendBytes: number;
  /** The model's chat template, or null when the ChatML fallback is used. */
  chatTemplate: string | null;
  /** Why the fallback template is used, if it is. */
  templateWarning: string | null;
  loadMs: number;
  bos: number;
  eos: number;
  /** Where the engine read the file: 'cache' (its OPFS cache), 'url' (the network, uncached), 'blob' (a File/Blob), 'bytes' (sent with the request). */
  source: 'cache' | 'url' | 'blob' | 'bytes' | '';
  /** The engine's wasm linear memory after the load, in bytes. */
  wasmBytes: number;
  /** How much the load grew the wasm memory: on WebGPU from a named source only the metadata (weights stream to the GPU). */
  wasmGrowth: number;
  /** The GGUF's scalar metadata (arrays are replaced by { array: length }). */
  metadata: Record<string, unknown>;
}

/** A chat message (OpenAI shape; content may be text parts). */
export interface ChatMessage {
  role: 'system' | 'user' | 'assistant' | 'tool' | (string & {});
  content: string | Array<{ type: 'text'; text: string }> | null;
  /** The calls an assistant turn made (pass a response's message back as is). */
  tool_calls?: ToolCall[];
  /** On a 'tool' message: the id of the call it answers. */
  tool_call_id?: string;
  /** On a 'tool' message: the tool's name, which some templates show. */
  name?: string;
}

/** A function the model may call (OpenAI shape). `parameters` is a JSON
 * Schema; a forced call's arguments follow it (see tool_choice). */
export interface Tool {
  type: 'function';
  function: { name: string; description?: string; parameters?: Record<string, unknown> };
}

/** 'auto' (default): the model may call tools; 'none': the tools are shown but
 * the output is plain text; 'required': the model must call one of them; a
 * function: the model must call that one. Forced calls are sampled under a
 * grammar in the chat template's own call syntax. */
export type ToolChoice = 'auto' | 'none' | 'required' | { type: 'function'; function: { name: string } };

/** A call the model made. `arguments` is JSON text, as in OpenAI's API. */
export interface ToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

/** Sampling and stopping parameters (OpenAI names, plus llama.cpp's). Defaults are llama.cpp's. */
export interface SamplingParams {
  /** Tokens to generate at most (default: until the context is full or an end token). */
  max_tokens?: number;
  max_completion_tokens?: number;
  /** 0 is greedy. Default 0.8. */
  temperature?: number;
  /** Default 0.95. */
  top_p?: number;
  /** Default 40; 0 keeps all. */
  top_k?: number;
  /** Default 0.05. */
  min_p?: number;
  /** Default 1 (off). */
  repeat_penalty?: number;
  /** Window of repeat/frequency/presence penalties. Default 64. */
  repeat_last_n?: number;
  frequency_penalty?: number;
  presence_penalty?: number;
  /** Seed of the draw (default random). Same seed, same model and prompt: same tokens. */
  seed?: number;
  /** Stop strings; the text ends before the first one found. */
  stop?: string | string[];
  /** Keep generating past end-of-generation tokens. */
  ignore_eos?: boolean;
  /**
   * When the context fills up, drop the older half of the tokens after the
   * first `n_keep` and go on (llama.cpp's context shift), instead of ending
   * with finish_reason "length". Default false. A model whose cache cannot
   * be shifted (sliding-window layers) rejects it with invalid-argument.
   */
  contextShift?: boolean;
  /** Tokens at the start of the context a context shift keeps (the system prompt), BOS included. Default 0. */
  n_keep?: number;
  /** Add the token ids to each choice (choice.tokens). */
  return_tokens?: boolean;
  /**
   * Constrains the output to JSON: `json_object` (any object), or
   * `json_schema` (JSON text the schema accepts, converted as llama.cpp's
   * json-schema-to-grammar does). A keyword the conversion would not
   * enforce is an 'invalid-argument' error naming its JSON pointer.
   */
  response_format?: ResponseFormat;
  /** A GBNF grammar (llama.cpp's syntax) the output must match; excludes response_format. Syntax errors are 'invalid-argument' naming line:column. */
  grammar?: string;
  /** Must be 1 if given. */
  n?: 1;
  /** Aborts the request (queued or running): it rejects (or the stream throws) with code 'aborted'. */
  signal?: AbortSignal;
}

/** SamplingParams.response_format (OpenAI's shape). */
export type ResponseFormat =
  | { type: 'text' }
  /** `schema` (llama.cpp's extension) narrows the object. */
  | { type: 'json_object'; schema?: JSONSchema }
  | {
      type: 'json_schema';
      json_schema: {
        /** OpenAI requires it; it is not used here (llama.cpp does not require it either). */
        name?: string;
        description?: string;
        schema: JSONSchema;
        /** Outputs always follow the schema: false constrains too, as in llama.cpp. */
        strict?: boolean | null;
      };
    };

/** A JSON Schema document (an object; draft 2020-12 keywords, as far as llama.cpp converts them). */
export type JSONSchema = { [keyword: string]: unknown };

/** Token counts of a request. */
export interface Usage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  /** cached_tokens: prompt tokens reused from the previous request's context. */
  prompt_tokens_details: { cached_tokens: number };
}

/** Timings of a request (llama.cpp server's names). */
export interface Timings {
  /** Prompt tokens evaluated (not reused). */
  prompt_n: number;
  prompt_ms: number;
  prompt_per_second: number;
  predicted_n: number;
  predicted_ms: number;
  predicted_per_second: number;
  /** From the request's start (after its turn in the queue) to the first token. */
  time_to_first_token_ms: number;
  /** Context shifts made while generating (contextShift). */
  context_shifts: number;
}

/** 'stop': an end token or stop string; 'length': max_tokens or a full
 * context; 'tool_calls': the output was parsed into tool calls. */
export type FinishReason = 'stop' | 'length' | 'tool_calls';

/** create()'s second argument, as the OpenAI SDK's RequestOptions: a
 * signal that aborts the call (or set `signal` in the request, not both). */
export interface RequestOptions {
  signal?: AbortSignal;
}

export interface ChatCompletionRequest extends SamplingParams {
  messages: ChatMessage[];
  stream?: boolean;
  /** Functions the chat template shows the model. A template with no known
   * tool-call format (Hermes 2 Pro/Qwen, Llama 3.x, Mistral Nemo) rejects
   * them with 'invalid-argument'. */
  tools?: Tool[];
  tool_choice?: ToolChoice;
}

export interface ChatCompletion {
  id: string;
  object: 'chat.completion';
  created: number;
  model: string;
  choices: Array<{ index: 0; message: { role: 'assistant'; content: string | null; tool_calls?: ToolCall[] }; finish_reason: FinishReason; logprobs: null; tokens?: number[] }>;
  usage: Usage;
  timings: Timings;
}

export interface ChatCompletionChunk {
  id: string;
  object: 'chat.completion.chunk';
  created: number;
  model: string;
  choices: Array<{ index: 0; delta: { role?: 'assistant'; content?: string | null; tool_calls?: Array<ToolCall & { index: number }> }; finish_reason: FinishReason | null; logprobs: null; tokens?: number[] }>;
  /** On the last chunk only. */
  usage?: Usage;
  /** On the last chunk only. */
  timings?: Timings;
}

export interface CompletionRequest extends SamplingParams {
  prompt: string;
  stream?: boolean;
}

export interface Completion {
  id: string;
  object: 'text_completion';
  created: number;
  model: string;
  choices: Array<{ index: 0; text: string; finish_reason: FinishReason | null; logprobs: null; tokens?: number[] }>;
  /** On the response, or the last chunk of a stream. */
  usage?: Usage;
  timings?: Timings;
}

/** A streamed response: for await its chunks; leaving the loop early stops generation. */
export interface ChunkStream<T> extends AsyncIterableIterator<T> {
  /** Aborts the generation (the loop then ends with code 'aborted'). */
  controller: AbortController;
}

/** A cached model. */
export interface CachedModel {
  id: string;
  url: string;
  name: string;
  size: number;
  cachedAt: string;
  /** Files of the model (1 unless it is a split GGUF). */
  shards: number;
}

/** The model cache (OPFS). */
export interface Models {
  list(): Promise<CachedModel[]>;
  /** Downloads url into the cache (every shard of a split model, when url is its first shard's); resolves to its entry. */
  download(url: string, options?: { id?: string; signal?: AbortSignal; onProgress?: (p: LoadProgress) => void }): Promise<CachedModel>;
  /** Resolves to whether it existed. */
  delete(id: string): Promise<boolean>;
  /** Resolves to how many entries were removed. */
  clear(): Promise<number>;
  /** Storage use of the origin; persist asks the browser not to evict it. */
  estimate(options?: { persist?: boolean }): Promise<{ usage: number; quota: number; persisted: boolean }>;
  /** Whether a URL (an entry stored for that same URL; a split model's entry is its first shard's) or an id is cached. */
  has(urlOrId: string): Promise<boolean>;
  /**
   * The cache id a URL is stored under: its file name, "-" and 128 bits of
   * SHA-256 of the absolute URL (the worker's rule). Ids are 1-128 letters,
   * digits, '.', '_' or '-', not starting with '.'.
   */
  idFor(url: string): Promise<string>;
}

/** What info() reports. */
export interface EngineInfo {
  engine: { name: string; protocol: number; backend: string };
  gpu: { available: false; reason: string } | {
    available: true; vendor: string; architecture: string; device: string; description: string;
    features: string[]; limits: Record<string, number>;
  };
  model: ModelInfo | null;
}

/** engine.embeddings.create's request (OpenAI's, plus normalize). */
export interface EmbeddingRequest {
  /** A text or texts; each is tokenized with the model's special tokens ([CLS]/[SEP], BOS). */
  input: string | string[];
  /** 'float' (default): number arrays; 'base64': the little-endian float32 bytes, base64-encoded. */
  encoding_format?: 'float' | 'base64';
  /** Keep the first components only (normalized again when normalize is on). */
  dimensions?: number;
  /** Scale each vector to unit L2 norm (default true); false gives the pooled vector as llama.cpp returns it. */
  normalize?: boolean;
  signal?: AbortSignal;
}

/** engine.embeddings.create's response, as OpenAI's. */
export interface EmbeddingResponse {
  object: 'list';
  data: { object: 'embedding'; index: number; embedding: number[] | string }[];
  model: string;
  usage: { prompt_tokens: number; total_tokens: number };
}

/** engine.rerank's request (llama.cpp server's /v1/rerank). */
export interface RerankRequest {
  query: string;
  documents: string[];
  /** How many results, best first (default: all). */
  top_n?: number;
  /** Include each result's document text. */
  return_documents?: boolean;
  signal?: AbortSignal;
}

/** engine.rerank's response: relevance_score is the reranker's raw score (a logit), as llama.cpp's server reports it. */
export interface RerankResponse {
  object: 'list';
  model: string;
  results: { index: number; relevance_score: number; document?: { text: string } }[];
  usage: { prompt_tokens: number; total_tokens: number };
}

/** The engine createEngine resolves to. Calls run one at a time, in the order made. */
export declare class WebGGUFEngine {
  /** The low-level GLUE client (see 'webgguf/protocol'). */
  readonly client: GlueClient;
  /** The loaded model, or null. */
  readonly model: ModelInfo | null;
  readonly chat: {
    completions: {
      create(req: ChatCompletionRequest & { stream: true }, options?: RequestOptions): Promise<ChunkStream<ChatCompletionChunk>>;
      create(req: ChatCompletionRequest & { stream?: false }, options?: RequestOptions): Promise<ChatCompletion>;
      create(req: ChatCompletionRequest, options?: RequestOptions): Promise<ChatCompletion | ChunkStream<ChatCompletionChunk>>;
    };
  };
  readonly completions: {
    create(req: CompletionRequest & { stream: true }, options?: RequestOptions): Promise<ChunkStream<Completion>>;
    create(req: CompletionRequest & { stream?: false }, options?: RequestOptions): Promise<Completion>;
    create(req: CompletionRequest, options?: RequestOptions): Promise<Completion | ChunkStream<Completion>>;
  };
  /**
   * Embeddings with an embedding model (BERT-style encoders, decoders with a pooling type such as
   * Qwen3-Embedding). Rejects with 'invalid-argument' (a generative model, a bad request) or
   * 'context-full' (an input longer than the context).
   */
  readonly embeddings: {
    create(req: EmbeddingRequest, options?: RequestOptions): Promise<EmbeddingResponse>;
  };
  /** Scores documents against a query with a reranker (rank pooling); 'invalid-argument' for other models. */
  rerank(req: RerankRequest, options?: RequestOptions): Promise<RerankResponse>;
  readonly models: Models;
  /**
   * The loaded model's conversation state: the tokens its KV cache holds and the cache itself.
   * save() resolves to bytes (a header naming the model, its context and cache shape; the cache;
   * a checksum) with meta (any JSON value) beside them; restore() puts them back, so that the next
   * request reuses those tokens without evaluating them again. restore() rejects with 'bad-file'
   * for bytes that are not an intact save and 'invalid-argument' for a save of another model or
   * context size, leaving the session as it was.
   */
  readonly sessions: {
    save(options?: { meta?: unknown; signal?: AbortSignal }): Promise<Uint8Array>;
    restore(data: Uint8Array, options?: { signal?: AbortSignal }): Promise<{ tokens: number; meta?: unknown }>;
  };
  /**
   * Loads a model, replacing the loaded one. A URL is downloaded into the model cache first (unless
   * cache: false: then the engine reads it with Range requests, or the page fetches it whole when the
   * server does not answer them); a cached id is read by the engine from OPFS; a File/Blob is handed to
   * the engine worker without copying. On WebGPU the weights of these stream in 4 MiB chunks into GPU
   * buffers and never enter wasm memory; bytes (ArrayBuffer/Uint8Array) pass through it. Aborting
   * (signal) stops the load between two chunks and frees what it had put on the GPU. Rejects with
   * WebGGUFError: 'not-found' (no such cached model), 'network' (status set for HTTP errors), 'bad-file',
   * 'unsupported-model', 'gpu-unavailable' (backend 'webgpu'), 'device-lost' (the GPU device was lost during
   * the load; load again for a new device), 'out-of-memory', 'aborted'.
   *
   * A downloaded file enters the model cache only once the engine has checked it (GGUF header and tensor
   * table, size, a supported architecture): a failed download or check caches nothing.
   *
   * A failed load leaves the loaded model loaded and usable when it fails before the new weights are placed:
   * network and HTTP errors, 'bad-file', 'unsupported-model', an abort while downloading. A failure while
   * placing them ('out-of-memory', GPU errors, an abort during the upload) leaves no model loaded (the old one
   * was freed to make room); engine.model and info().model say which.
   */
  load(source: ModelSource, options?: LoadOptions): Promise<ModelInfo>;
  /** Token ids of text (addSpecial: BOS as the model asks, default true; parseSpecial: special tokens in text, default true). */
  tokenize(text: string, options?: { addSpecial?: boolean; parseSpecial?: boolean; signal?: AbortSignal }): Promise<number[]>;
  /** Text of token ids (special: render control tokens). */
  detokenize(ids: ArrayLike<number>, options?: { special?: boolean; signal?: AbortSignal }): Promise<string>;
  /** The prompt text the model's chat template (or options.template) makes of messages. */
  applyChatTemplate(messages: ChatMessage[], options?: { addGenerationPrompt?: boolean; template?: string; signal?: AbortSignal }): Promise<string>;
  info(): Promise<EngineInfo>;
  /** Frees the model; resolves to whether one was loaded. */
  unload(): Promise<boolean>;
  /** Stops the worker; later calls reject with code 'crashed'. */
  terminate(): void;
}

/** Starts the engine worker and resolves when it serves. */
export declare function createEngine(options?: CreateEngineOptions): Promise<WebGGUFEngine>;

/**
 * The model cache in OPFS read from the page, without an engine: the files engine.models and load() keep
 * (webgguf/models/<id>/00000.gguf and meta.json, written by the engine worker). Download through an engine
 * (engine.models.download or load(url)): it checks each file before caching it.
 */
export declare class ModelCache {
  list(): Promise<CachedModel[]>;
  get(id: string): Promise<CachedModel | null>;
  /** The cached model's file; 'invalid-argument' for a split model (use files). */
  open(id: string): Promise<File>;
  /** The cached model's files in shard order: one, or each shard of a split model. */
  files(id: string): Promise<File[]>;
  /** Removes the entry and any download of it in progress. Fails while an engine is reading it. */
  delete(id: string): Promise<boolean>;
  clear(): Promise<number>;
  estimate(options?: { persist?: boolean }): Promise<{ usage: number; quota: number; persisted: boolean }>;
}
