// Fill a form from free text: the schema goes to the engine as
// response_format, so the model can only write JSON the schema accepts,
// and the form is filled from the parsed answer. In your app:
// import { createEngine } from 'webgguf'.
import { createEngine } from '../../jsbindings/src/index.js';

const $ = (id) => document.getElementById(id);
const status = (text, error = false) => { $('status').textContent = text; $('status').className = error ? 'error' : ''; };
const setProgress = (bar, p) => (p.fraction === undefined ? bar.removeAttribute('value') : (bar.value = p.fraction));

$('schema').value = await (await fetch(new URL('schema.json', import.meta.url))).text();
const engine = await createEngine().catch((e) => { status(`The engine did not start: ${e.message}`, true); throw e; });
status('ready: load a model');
let running = null;

/** One form control per property of the schema: a select for an enum, a checkbox, a number, a date or a text field. */
function buildForm(schema) {
  const form = $('form');
  form.replaceChildren();
  for (const [name, p] of Object.entries(schema.properties ?? {})) {
    const label = document.createElement('label');
    label.textContent = name;
    let input;
    if (Array.isArray(p.enum)) {
      input = document.createElement('select');
      for (const v of ['', ...p.enum]) input.append(new Option(String(v), String(v)));
    } else {
      input = document.createElement('input');
      input.type = p.type === 'boolean' ? 'checkbox' : p.type === 'integer' || p.type === 'number' ? 'number' : p.format === 'date' ? 'date' : 'text';
    }
    input.name = name;
    input.readOnly = input.type !== 'checkbox';
    input.disabled = input.type === 'checkbox';
    label.append(input);
    form.append(label);
  }
}

function fillForm(value) {
  for (const el of $('form').elements) {
    const v = value[el.name];
    if (el.type === 'checkbox') el.checked = v === true;
    else el.value = v === undefined || v === null ? '' : String(v);
  }
}

$('load').onclick = async () => {
  $('extract').disabled = true;
  status('loading…');
  try {
    const m = await engine.load($('url').value, { onProgress: (p) => { setProgress($('progress'), p); status(`${p.stage} ${(p.loaded / 1e6).toFixed(1)} MB`); } });
    $('model').textContent = `${m.name}: ${m.arch}, context ${m.contextSize}, on ${m.backend}`;
    $('extract').disabled = false;
    status('loaded');
  } catch (e) {
    status(`${e.code}: ${e.message}`, true);
  }
};

$('extract').onclick = async () => {
  let schema;
  try {
    schema = JSON.parse($('schema').value);
  } catch (e) {
    status(`the schema is not JSON: ${e.message}`, true);
    return;
  }
  buildForm(schema);
  $('out').textContent = '';
  $('extract').disabled = true;
  $('stop').disabled = false;
  running = new AbortController();
  status('extracting…');
  try {
    const stream = await engine.chat.completions.create({
      messages: [
        { role: 'system', content: 'Extract the fields of the booking from the message. Answer with JSON only.' },
        { role: 'user', content: $('text').value },
      ],
      response_format: { type: 'json_schema', json_schema: { name: 'form', schema, strict: true } },
      temperature: Number($('temp').value), max_tokens: 512, stream: true,
    }, { signal: running.signal });
    let text = '';
    let finish = null;
    for await (const chunk of stream) {
      text += chunk.choices[0].delta.content ?? '';
      $('out').textContent = text;
      finish = chunk.choices[0].finish_reason ?? finish;
    }
    if (finish !== 'stop') throw Object.assign(new Error('the answer ran out of tokens before the JSON ended'), { code: 'length' });
    fillForm(JSON.parse(text));
    status('done: form filled');
  } catch (e) {
    // A schema keyword the engine cannot enforce is an invalid-argument
    // error naming it (e.g. "/properties/email/format").
    status(e.code === 'aborted' ? 'stopped' : `${e.code || 'error'}: ${e.message}`, e.code !== 'aborted');
  } finally {
    $('extract').disabled = false;
    $('stop').disabled = true;
  }
};

$('stop').onclick = () => running && running.abort();
