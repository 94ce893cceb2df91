// The offline PWA: a service worker (sw.js) caches the app shell and the
// engine's assets; the model lives in OPFS through engine.models. After one
// online visit, reload with the network off: load the cached model and
// generate. In your app: import { createEngine } from 'webgguf'.
import { createEngine } from '../../jsbindings/src/index.js';

const MODEL_URL = new URL('../../testdata/models/gotiny-q4_k_m.gguf', location.href).href;
const $ = (id) => document.getElementById(id);
const state = (s) => { document.body.dataset.state = s; };
const status = (t, err = false) => { $('status').textContent = t; $('status').className = err ? 'error' : ''; };
const showNet = () => { $('net').textContent = navigator.onLine ? 'online' : 'offline'; };
addEventListener('online', showNet);
addEventListener('offline', showNet);
showNet();

async function registerSW() {
  if (!('serviceWorker' in navigator)) { $('sw').textContent = 'no (this browser has no service workers)'; return; }
  try {
    await navigator.serviceWorker.register('sw.js');
    await navigator.serviceWorker.ready;
    $('sw').textContent = navigator.serviceWorker.controller ? 'yes' : 'yes (after a reload)';
  } catch (e) {
    $('sw').textContent = `no: ${e.message}`;
  }
}

// A <progress> without a value is indeterminate: the fraction is undefined
// while the size is unknown (a server without Content-Length).
const setProgress = (bar, p) => (p.fraction === undefined ? bar.removeAttribute('value') : (bar.value = p.fraction));

let engine;
let modelId;

async function refresh() {
  modelId = await engine.models.idFor(MODEL_URL);
  const entry = (await engine.models.list()).find((m) => m.id === modelId);
  $('cached').textContent = entry ? `cached: ${entry.name}, ${(entry.size / 1e6).toFixed(1)} MB` : 'the model is not cached yet';
  $('load').disabled = !entry;
  $('download').disabled = !!entry || !navigator.onLine;
  return !!entry;
}

$('download').onclick = async () => {
  $('download').disabled = true;
  try {
    await engine.models.download(MODEL_URL, { onProgress: (p) => { setProgress($('progress'), p); } });
    await engine.models.estimate({ persist: true }).catch(() => {});
    status('downloaded: the app now works offline');
    state('cached');
  } catch (e) {
    status(`${e.code}: ${e.message}`, true);
  }
  await refresh();
};

$('load').onclick = async () => {
  $('load').disabled = true;
  try {
    const m = await engine.load({ id: modelId }, { onProgress: (p) => { setProgress($('progress'), p); } });
    status(`loaded ${m.name} (${m.backend})`);
    $('generate').disabled = false;
    state('loaded');
  } catch (e) {
    status(`${e.code}: ${e.message}`, true);
    $('load').disabled = false;
  }
};

$('generate').onclick = async () => {
  $('generate').disabled = true;
  $('out').textContent = '';
  state('generating');
  try {
    const stream = await engine.completions.create({ prompt: $('prompt').value, max_tokens: 48, temperature: 0 });
    $('out').textContent = stream.choices[0].text;
    status(`${stream.usage.completion_tokens} tokens, ${stream.timings.predicted_per_second.toFixed(1)} tokens/s`);
    state('generated');
  } catch (e) {
    status(`${e.code}: ${e.message}`, true);
    state('loaded');
  } finally {
    $('generate').disabled = false;
  }
};

state('starting');
await registerSW();
try {
  // Once the service worker controls the page, the engine is loaded through
  // it (sw.js serves ./engine/ from its cache); before that, from the package.
  const assets = navigator.serviceWorker && navigator.serviceWorker.controller ? { assetBaseURL: new URL('engine/', location.href) } : {};
  engine = await createEngine({ backend: 'auto', ...assets });
  state((await refresh()) ? 'cached' : 'ready');
} catch (e) {
  status(`${e.code}: ${e.message}`, true);
  state('failed');
}
