// Semantic search over a few hundred paragraphs: each is embedded once
// (unit vectors, 16 inputs a call), the query is embedded when asked, and
// the paragraphs rank by cosine similarity, which for unit vectors is the
// dot product. A reranker in a second engine can rescore the top results.
// In your app: import { createEngine } from 'webgguf'.
import { createEngine } from '../../jsbindings/src/index.js';
import { embedders } from './presets.js';

const BATCH = 16;
const RANK_POOLING = 4; // llama.cpp's LLAMA_POOLING_TYPE_RANK

const $ = (id) => document.getElementById(id);
const state = (s) => { document.body.dataset.state = s; };
const status = (text, error = false) => { $('status').textContent = text; $('status').className = error ? 'error' : ''; };
const setProgress = (bar, p) => (p.fraction === undefined ? bar.removeAttribute('value') : (bar.value = p.fraction));
const pooling = (m) => Number(m.metadata[`${m.arch}.pooling_type`] ?? 0);

const docs = (await (await fetch(new URL('paragraphs.txt', import.meta.url))).text()).split('\n').map((s) => s.trim()).filter(Boolean);
$('count').textContent = String(docs.length);
$('corpus').replaceChildren(...docs.map((d) => Object.assign(document.createElement('li'), { textContent: d })));

for (const p of embedders) $('preset').append(new Option(p.label, p.id));
const preset = () => embedders.find((p) => p.id === $('preset').value);
const showPreset = () => {
  const p = preset();
  $('note').textContent = p.note;
  $('url').hidden = p.id !== 'custom';
};
$('preset').onchange = showPreset;
showPreset();

state('starting');
const engine = await createEngine().catch((e) => { status(`The engine did not start: ${e.message}`, true); state('error'); throw e; });
let reranker = null; // a second engine, made when a reranker is loaded

// The index: one row of dim floats a paragraph, unit length.
const index = { dim: 0, vectors: null, prefix: '' };
// What the last search embedded and returned, for tests and the console.
let last = null;
let generation = 0; // a new load abandons an index still being built

window.webggufSearch = {
  engine, docs, index,
  get reranker() { return reranker; },
  get last() { return last; },
  /** The index as arrays of numbers (JSON-friendly), or null before one is built. */
  vectors: () => index.vectors && Array.from({ length: docs.length }, (_, i) => Array.from(index.vectors.subarray(i * index.dim, (i + 1) * index.dim))),
};

status('ready: pick a model and load it');
state('idle');
$('load').disabled = false;

$('load').onclick = async () => {
  const p = preset();
  const url = p.id === 'custom' ? $('url').value.trim() : p.url;
  if (!url) return status('enter a model URL', true);
  const gen = ++generation;
  $('search').disabled = true;
  index.vectors = null;
  state('loading');
  status('loading…');
  try {
    const m = await engine.load(url, { onProgress: (e) => { setProgress($('progress'), e); status(`${e.stage} ${(e.loaded / 1e6).toFixed(1)} MB`); } });
    if (pooling(m) === RANK_POOLING) throw Object.assign(new Error(`${m.name} is a reranker (rank pooling): load it as the reranker, and an embedding model here`), { code: 'invalid-argument' });
    $('model').textContent = `${m.name}: ${m.arch}, ${m.embeddingSize} dimensions, context ${m.contextSize}, on ${m.backend}`;
    index.prefix = p.queryPrefix ?? '';
    state('indexing');
    const t0 = performance.now();
    let vectors = null;
    for (let i = 0; i < docs.length; i += BATCH) {
      const r = await engine.embeddings.create({ input: docs.slice(i, i + BATCH) });
      if (gen !== generation) return;
      if (!vectors) {
        index.dim = r.data[0].embedding.length;
        vectors = new Float32Array(docs.length * index.dim);
      }
      r.data.forEach((d, j) => vectors.set(d.embedding, (i + j) * index.dim));
      const n = Math.min(i + BATCH, docs.length);
      $('progress').value = n / docs.length;
      status(`indexing: ${n}/${docs.length} paragraphs`);
    }
    index.vectors = vectors;
    status(`indexed ${docs.length} paragraphs in ${((performance.now() - t0) / 1000).toFixed(1)} s: type a query`);
    $('search').disabled = false;
    state('indexed');
  } catch (e) {
    if (gen !== generation) return;
    status(`${e.code || 'error'}: ${e.message}`, true);
    state('error');
  }
};

$('load-rerank').onclick = async () => {
  const url = $('rerank-url').value.trim();
  if (!url) return status('enter a reranker URL', true);
  $('use-rerank').disabled = true;
  $('use-rerank').checked = false;
  $('load-rerank').disabled = true;
  status('loading the reranker…');
  try {
    reranker ??= await createEngine();
    const m = await reranker.load(url, { onProgress: (e) => status(`reranker: ${e.stage} ${(e.loaded / 1e6).toFixed(1)} MB`) });
    if (pooling(m) !== RANK_POOLING) {
      await reranker.unload();
      throw Object.assign(new Error(`${m.name} has no rank pooling: it is not a reranker`), { code: 'invalid-argument' });
    }
    $('rerank-model').textContent = `${m.name}: ${m.arch} reranker on ${m.backend}`;
    $('use-rerank').disabled = false;
    $('use-rerank').checked = true;
    status(index.vectors ? 'reranker loaded: search again to rerank' : 'reranker loaded');
  } catch (e) {
    status(`reranker: ${e.code || 'error'}: ${e.message}`, true);
  } finally {
    $('load-rerank').disabled = false;
  }
};

/** The k rows of the index with the largest dot product with q, best first (ties: lower index first). */
function topK(q, k) {
  const { dim, vectors } = index;
  const scored = docs.map((_, i) => {
    let s = 0;
    for (let j = 0; j < dim; j++) s += q[j] * vectors[i * dim + j];
    return { index: i, score: s };
  });
  scored.sort((a, b) => b.score - a.score || a.index - b.index);
  return scored.slice(0, k);
}

function show(results) {
  $('results').replaceChildren(...results.map((r) => {
    const li = document.createElement('li');
    li.dataset.index = String(r.index);
    li.dataset.score = String(r.score);
    const score = document.createElement('span');
    score.className = 'score';
    score.textContent = r.rerank === undefined ? `cos ${r.score.toFixed(4)}` : `rerank ${r.rerank.toFixed(3)} · cos ${r.score.toFixed(4)}`;
    if (r.rerank !== undefined) li.dataset.rerank = String(r.rerank);
    li.append(score, docs[r.index]);
    return li;
  }));
}

$('form').addEventListener('submit', async (ev) => {
  ev.preventDefault();
  if (!index.vectors) return;
  const text = index.prefix + $('query').value;
  const k = Math.max(1, Math.min(docs.length, Number($('k').value) || 5));
  $('search').disabled = true;
  state('searching');
  status('searching…');
  try {
    const t0 = performance.now();
    const q = (await engine.embeddings.create({ input: text })).data[0].embedding;
    let results = topK(q, k);
    let how = 'cosine';
    if ($('use-rerank').checked && reranker) {
      const r = await reranker.rerank({ query: $('query').value, documents: results.map((x) => docs[x.index]) });
      results = r.results.map((x) => ({ ...results[x.index], rerank: x.relevance_score }));
      how = 'cosine, then the reranker';
    }
    last = { query: text, vector: q, results };
    show(results);
    status(`done: top ${k} of ${docs.length} by ${how} in ${(performance.now() - t0).toFixed(0)} ms`);
  } catch (e) {
    status(`${e.code || 'error'}: ${e.message}`, true);
  } finally {
    $('search').disabled = false;
    state('indexed');
  }
});
