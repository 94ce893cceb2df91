// A Vite app using webgguf as a dependency: the bundler finds the engine's
// assets (worker.js, engine.wasm, wasm_exec.js, webgpu-runtime.js) through
// the package's new URL(…, import.meta.url) references and emits them with
// the app, so the engine runs on WebGPU where the browser has it, also
// under a CSP without 'unsafe-eval'.
import { createEngine } from 'webgguf';

const out = document.getElementById('out');
const params = new URLSearchParams(location.search);

async function run() {
  const engine = await createEngine({ backend: params.get('backend') || 'auto' });
  const model = params.get('model') || '/testdata/models/tiny-llama-q8_0.gguf';
  const m = await engine.load(model, { cache: false });
  const c = await engine.completions.create({
    prompt: params.get('prompt') || 'Once upon a time',
    max_tokens: Number(params.get('n') || 16),
    temperature: 0,
    ignore_eos: true,
    return_tokens: true,
  });
  out.textContent = c.choices[0].text;
  engine.terminate();
  return { tokens: c.choices[0].tokens, text: c.choices[0].text, backend: m.backend };
}

globalThis.harnessDone = run();
globalThis.harnessDone.catch((e) => { out.textContent = `${e.code}: ${e.message}`; });
