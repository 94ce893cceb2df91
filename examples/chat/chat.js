// The chat demo: model picker with presets, custom URL and local file;
// download progress; cached models; streamed replies with light markdown;
// stop; time-to-first-token and tokens/s. In your app:
// import { createEngine } from 'webgguf'.
import { createEngine } from '../../jsbindings/src/index.js';
import { presets } from './presets.js';
import { renderMarkdown } from './markdown.js';

const $ = (id) => document.getElementById(id);
// A <progress> without a value is indeterminate: the fraction is undefined
// while the size is unknown (a server without Content-Length).
const setProgress = (bar, p) => (p.fraction === undefined ? bar.removeAttribute('value') : (bar.value = p.fraction));
const state = (s) => { document.body.dataset.state = s; };
const history = [];
let preset = presets[0];
let loadedMode = null;
let running = null;

function showError(e) {
  $('error').hidden = !e;
  if (e) $('error').textContent = explain(e);
}

// explain turns a WebGGUFError into advice a person can act on.
function explain(e) {
  const hints = {
    network: 'Check the URL and your connection; the server must allow cross-origin requests (CORS).',
    quota: 'The browser is out of storage for this site: delete cached models below.',
    'bad-file': 'This is not a valid GGUF file.',
    'unsupported-model': 'This model architecture or format is not supported yet.',
    'context-full': 'The conversation is longer than the context: reload the model to start over.',
    'out-of-memory': 'The model is too large for this device: pick a smaller one.',
    crashed: 'The engine stopped: reload the page.',
  };
  return `${e.message || e}${hints[e.code] ? ' — ' + hints[e.code] : ''}`;
}

function fmtBytes(n) {
  return n >= 1e9 ? (n / 1e9).toFixed(2) + ' GB' : (n / 1e6).toFixed(1) + ' MB';
}

function pickPreset(id) {
  preset = presets.find((p) => p.id === id) || presets[0];
  $('preset').value = preset.id;
  $('preset-note').textContent = preset.note;
  $('custom-row').hidden = preset.id !== 'custom';
  $('file-row').hidden = preset.id !== 'file';
}

async function refreshCache() {
  try {
    const list = await engine.models.list();
    $('cached').replaceChildren(...list.map((m) => {
      const li = document.createElement('li');
      const name = document.createElement('span');
      name.textContent = `${m.name} (${fmtBytes(m.size)})`;
      const del = document.createElement('button');
      del.textContent = 'Delete';
      del.onclick = async () => { await engine.models.delete(m.id).catch(showError); refreshCache(); };
      li.append(name, del);
      return li;
    }));
    if (!list.length) $('cached').textContent = 'none';
    const est = await engine.models.estimate();
    $('storage').textContent = `storage used ${fmtBytes(est.usage)} of ${fmtBytes(est.quota)}`;
  } catch (e) {
    $('storage').textContent = explain(e);
  }
}

function addMessage(role, text) {
  const div = document.createElement('div');
  div.className = `msg ${role}`;
  renderMarkdown(div, text);
  $('messages').append(div);
  div.scrollIntoView({ block: 'end' });
  return div;
}

async function load() {
  showError(null);
  let source;
  if (preset.id === 'custom') source = $('custom-url').value.trim();
  else if (preset.id === 'file') source = $('file').files[0];
  else source = preset.url;
  if (!source) { showError(new Error(preset.id === 'file' ? 'Choose a .gguf file first.' : 'Enter a model URL first.')); return; }
  state('loading');
  $('input').disabled = $('send').disabled = true;
  $('progress').hidden = false;
  try {
    const m = await engine.load(source, {
      onProgress: (p) => {
        setProgress($('progress'), p);
        $('load-status').textContent = `${p.stage}: ${fmtBytes(p.loaded)}${p.total ? ' of ' + fmtBytes(p.total) : ''}`;
      },
    });
    loadedMode = preset.mode;
    history.length = 0;
    $('messages').replaceChildren();
    $('load-status').textContent = `${m.name}: ${m.arch}, ${m.layers} layers, context ${m.contextSize}, ${m.backend} backend${m.templateWarning && loadedMode === 'chat' ? ' (no chat template: using ChatML)' : ''}`;
    $('input').placeholder = preset.placeholder || 'Type a message';
    $('input').disabled = $('send').disabled = false;
    $('input').focus();
    state('ready');
  } catch (e) {
    showError(e);
    $('load-status').textContent = '';
    state(engine.model ? 'ready' : 'idle');
    $('input').disabled = $('send').disabled = !engine.model;
  } finally {
    $('progress').hidden = true;
    refreshCache();
  }
}

async function send(text) {
  showError(null);
  history.push({ role: 'user', content: text });
  addMessage('user', text);
  const div = addMessage('assistant', '');
  let reply = '';
  running = new AbortController();
  state('generating');
  $('send').disabled = true;
  $('stop').disabled = false;
  const t0 = performance.now();
  let first = 0;
  let n = 0;
  let lastStats = 0;
  const params = {
    stream: true, signal: running.signal,
    temperature: Number($('temperature').value), top_p: Number($('top_p').value), max_tokens: Number($('max_tokens').value),
  };
  let pending = false;
  // A completion model continues the user's code: show both as one block.
  const shown = () => (loadedMode === 'complete' ? '```\n' + text + reply + '\n```' : reply);
  const paint = () => { pending = false; renderMarkdown(div, shown()); div.scrollIntoView({ block: 'end' }); };
  try {
    const stream = loadedMode === 'complete'
      ? await engine.completions.create({ prompt: text, ...params })
      : await engine.chat.completions.create({ messages: systemAnd(history), ...params });
    for await (const chunk of stream) {
      const c = chunk.choices[0];
      const piece = loadedMode === 'complete' ? c.text : c.delta.content || '';
      if (piece) {
        const now = performance.now();
        if (!first) first = now;
        n++;
        reply += piece;
        if (!pending) { pending = true; requestAnimationFrame(paint); }
        // Live speed while streaming (the final line replaces it): pieces
        // after the first over the time since it, four times a second.
        if (n > 1 && now - lastStats > 250) {
          lastStats = now;
          $('stats').textContent = `${n} pieces · ${((n - 1) / ((now - first) / 1000)).toFixed(1)} tokens/s · first token after ${(first - t0).toFixed(0)} ms`;
        }
      }
      if (chunk.timings) {
        const t = chunk.timings;
        $('stats').textContent = `${t.predicted_n} tokens · ${t.predicted_per_second.toFixed(1)} tokens/s · first token after ${t.time_to_first_token_ms.toFixed(0)} ms · prompt ${chunk.usage.prompt_tokens} tokens (${chunk.usage.prompt_tokens_details.cached_tokens} reused)`;
      }
    }
  } catch (e) {
    if (e.code === 'aborted') {
      const dt = (performance.now() - first) / 1000;
      $('stats').textContent = `stopped after ${n} pieces · ${first ? (n / Math.max(dt, 1e-3)).toFixed(1) + ' tokens/s · first token after ' + (first - t0).toFixed(0) + ' ms' : 'before the first token'}`;
    } else {
      showError(e);
    }
  } finally {
    paint();
    history.push({ role: 'assistant', content: reply });
    running = null;
    $('send').disabled = false;
    $('stop').disabled = true;
    state('ready');
  }
}

function systemAnd(msgs) {
  const sys = $('system').value.trim();
  return sys ? [{ role: 'system', content: sys }, ...msgs] : msgs;
}

// Wiring.
for (const p of presets) {
  const o = document.createElement('option');
  o.value = p.id;
  o.textContent = p.label;
  $('preset').append(o);
}
pickPreset(new URLSearchParams(location.search).get('model') || 'gotiny');
$('preset').onchange = () => pickPreset($('preset').value);
$('load').onclick = load;
$('composer').onsubmit = (ev) => {
  ev.preventDefault();
  const text = $('input').value;
  if (!text.trim() || running || !engine.model) return;
  $('input').value = '';
  send(text);
};
$('input').onkeydown = (ev) => {
  if (ev.key === 'Enter' && !ev.shiftKey) { ev.preventDefault(); $('composer').requestSubmit(); }
};
$('stop').onclick = () => running && running.abort();

state('starting');
const engine = await createEngine({ logger: console }).catch((e) => { showError(e); state('failed'); throw e; });
$('load').disabled = false;
state('idle');
refreshCache();
