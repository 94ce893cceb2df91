// Classic worker: runs the browsercheck wasm (built into /gpucheck/ by the
// test) with the arguments posted by page.js and posts its JSON back.
// webgpu-runtime.js is loaded as a script so the WebGPU binding needs no
// eval (the page runs under the harness's strict CSP).
importScripts('/gpucheck/wasm_exec.js', '/gpucheck/webgpu-runtime.js');
self.onmessage = async (e) => {
  self.gpucheckArgs = e.data;
  const go = new Go();
  try {
    const r = await WebAssembly.instantiateStreaming(fetch('/gpucheck/engine.wasm'), go.importObject);
    await go.run(r.instance);
  } catch (err) {
    self.postMessage(JSON.stringify([{ Error: String(err) }]));
  }
};
