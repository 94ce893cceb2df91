// The smallest useful page: load a model from a URL with a progress bar and
// stream a completion. In your app: import { createEngine } from 'webgguf'.
import { createEngine } from '../../jsbindings/src/index.js';

const $ = (id) => document.getElementById(id);
// A <progress> without a value is indeterminate: the fraction is undefined
// while the size is unknown (a server without Content-Length).
const setProgress = (bar, p) => (p.fraction === undefined ? bar.removeAttribute('value') : (bar.value = p.fraction));
const status = (text, error = false) => { $('status').textContent = text; $('status').className = error ? 'error' : ''; };

const engine = await createEngine().catch((e) => { status(`The engine did not start: ${e.message}`, true); throw e; });
status('ready: load a model');
let running = null;

$('load').onclick = async () => {
  $('generate').disabled = true;
  status('loading…');
  try {
    const m = await engine.load($('url').value, { onProgress: (p) => { setProgress($('progress'), p); status(`${p.stage} ${(p.loaded / 1e6).toFixed(1)} MB`); } });
    $('model').textContent = `${m.name}: ${m.arch}, ${m.layers} layers, context ${m.contextSize}, on ${m.backend}`;
    $('generate').disabled = false;
    status('loaded');
  } catch (e) {
    status(`${e.code}: ${e.message}`, true);
  }
};

$('generate').onclick = async () => {
  $('out').textContent = '';
  $('generate').disabled = true;
  $('stop').disabled = false;
  running = new AbortController();
  const ids = [];
  status('generating…');
  try {
    const stream = await engine.completions.create({
      prompt: $('prompt').value, max_tokens: Number($('max').value), temperature: Number($('temp').value),
      stream: true, return_tokens: true, signal: running.signal,
    });
    for await (const chunk of stream) {
      $('out').textContent += chunk.choices[0].text;
      ids.push(...(chunk.choices[0].tokens ?? []));
      $('ids').textContent = JSON.stringify(ids);
      if (chunk.timings) status(`done: ${chunk.usage.completion_tokens} tokens, ${chunk.timings.predicted_per_second.toFixed(1)} tokens/s`);
    }
  } catch (e) {
    status(e.code === "aborted" ? "stopped" : `${e.code || "error"}: ${e.message}`, e.code !== "aborted");
  } finally {
    $('generate').disabled = false;
    $('stop').disabled = true;
  }
};

$('stop').onclick = () => running && running.abort();
