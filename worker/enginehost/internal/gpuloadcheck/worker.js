// Classic worker: loads webgpu/runtime.js as a script (no eval: the strict
// CSP holds), then runs the gpuloadcheck wasm with the arguments page.js
// posts, and posts its JSON back.
importScripts('/gpuload/wasm_exec.js', '/gpuload/webgpu-runtime.js');
self.onmessage = async (e) => {
  self.gpuloadArgs = e.data;
  const go = new Go();
  try {
    const r = await WebAssembly.instantiateStreaming(fetch('/gpuload/engine.wasm'), go.importObject);
    await go.run(r.instance);
  } catch (err) {
    self.postMessage(JSON.stringify([{ Error: String(err) }]));
  }
};
