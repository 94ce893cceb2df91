// OpenAI-shaped embeddings (https://platform.openai.com/docs/api-reference/embeddings)
// and a rerank call shaped like llama.cpp server's /v1/rerank: request
// checks and response building; the engine computes the vectors.

import { WebGGUFError } from './webgguf-error.js';

const bad = (msg) => new WebGGUFError('invalid-argument', msg);

/** The EmbedRequest fields of an embeddings.create request, and its options. */
export function embedRequest(req) {
  if (!req || typeof req !== 'object') throw bad('embeddings.create(request): request must be an object');
  let input = req.input;
  if (typeof input === 'string') input = [input];
  if (!Array.isArray(input) || input.length === 0 || input.some((s) => typeof s !== 'string')) {
    throw bad('input must be a string or a non-empty array of strings');
  }
  const format = req.encoding_format ?? 'float';
  if (format !== 'float' && format !== 'base64') throw bad(`encoding_format must be "float" or "base64", got ${JSON.stringify(format)}`);
  const dims = req.dimensions;
  if (dims !== undefined && dims !== null && !(Number.isInteger(dims) && dims >= 1)) throw bad('dimensions must be a positive integer');
  const normalize = req.normalize ?? true;
  if (typeof normalize !== 'boolean') throw bad('normalize must be a boolean');
  return { fields: { inputs: input, normalize }, format, dimensions: dims ?? 0, normalize };
}

/**
 * Builds the response from an EmbedResponse: with dimensions, each vector
 * keeps its first components (and is normalized again when normalize is
 * on, as OpenAI's shortened embeddings are).
 */
export function embedResponse(r, parsed, model) {
  const n = r.nEmbd;
  if (parsed.dimensions > n) throw bad(`dimensions ${parsed.dimensions} exceeds the model's ${n}`);
  const keep = parsed.dimensions || n;
  const data = [];
  let tokens = 0;
  for (let i = 0; i < r.tokens.length; i++) {
    let v = Float32Array.from(r.data.subarray(i * n, i * n + keep));
    if (keep < n && parsed.normalize) {
      let s = 0;
      for (const x of v) s += x * x;
      if (s > 0) v = v.map((x) => x / Math.sqrt(s));
    }
    data.push({ object: 'embedding', index: i, embedding: parsed.format === 'base64' ? base64(v) : Array.from(v) });
    tokens += r.tokens[i];
  }
  return { object: 'list', data, model, usage: { prompt_tokens: tokens, total_tokens: tokens } };
}

/** Base64 of the vector's little-endian float32 bytes, as OpenAI encodes it. */
function base64(v) {
  const b = new Uint8Array(v.length * 4);
  const dv = new DataView(b.buffer);
  v.forEach((x, i) => dv.setFloat32(i * 4, x, true));
  let s = '';
  for (let i = 0; i < b.length; i += 0x8000) s += String.fromCharCode(...b.subarray(i, i + 0x8000));
  return btoa(s);
}

/** The RerankRequest fields of a rerank request, and its options. */
export function rerankRequest(req) {
  if (!req || typeof req !== 'object') throw bad('rerank(request): request must be an object');
  if (typeof req.query !== 'string') throw bad('query must be a string');
  const docs = req.documents;
  if (!Array.isArray(docs) || docs.length === 0 || docs.some((d) => typeof d !== 'string')) throw bad('documents must be a non-empty array of strings');
  const topN = req.top_n ?? docs.length;
  if (!Number.isInteger(topN) || topN < 1) throw bad('top_n must be a positive integer');
  return { fields: { query: req.query, documents: docs }, topN: Math.min(topN, docs.length), returnDocuments: !!req.return_documents };
}

/**
 * Builds the rerank response: the top_n documents, best first (ties keep
 * the input order), each with its index and relevance_score, the raw
 * classifier score as llama.cpp's server reports it.
 */
export function rerankResponse(r, parsed, model) {
  const results = Array.from(r.scores, (s, index) => ({ index, relevance_score: s }));
  results.sort((a, b) => b.relevance_score - a.relevance_score || a.index - b.index);
  const top = results.slice(0, parsed.topN).map((x) => (parsed.returnDocuments ? { ...x, document: { text: parsed.fields.documents[x.index] } } : x));
  let tokens = 0;
  for (const t of r.tokens) tokens += t;
  return { object: 'list', model, results: top, usage: { prompt_tokens: tokens, total_tokens: tokens } };
}
