// Classic worker: runs the browsercheck wasm (built into /cpucheck/ by the
// test) with the arguments posted by page.js and posts its JSON back.
// webgpu-runtime.js is loaded as a script so the WebGPU binding needs no
// eval (the page runs under the harness's strict CSP).
importScripts('/cpucheck/wasm_exec.js', '/cpucheck/webgpu-runtime.js');
self.onmessage = async (e) => {
  self.cpucheckArgs = e.data;
  // As a browser without WebGPU at all (Firefox on Linux, older Safari).
  if (e.data.hideGPU) Object.defineProperty(WorkerNavigator.prototype, 'gpu', { get: () => undefined, configurable: true });
  const go = new Go();
  try {
    const r = await WebAssembly.instantiateStreaming(fetch('/cpucheck/engine.wasm'), go.importObject);
    await go.run(r.instance);
  } catch (err) {
    self.postMessage(JSON.stringify({ Error: String(err) }));
  }
};
