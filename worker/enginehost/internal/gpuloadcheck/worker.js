// Classic worker: loads webgpu/runtime.js as a script (no eval: the strict
// CSP holds), then runs the gpuloadcheck wasm with the arguments page.js
// posts, and posts its JSON back.
//
// GPU memory accounting for the cancel check: every buffer created on any
// device counts its size until it or its device is destroyed;
// self.gpuLiveBytes() is the sum (destroyed devices free all their buffers,
// as WebGPU specifies).
const liveBuffers = new Map(); // GPUBuffer → { size, device }
const createBuffer = GPUDevice.prototype.createBuffer;
GPUDevice.prototype.createBuffer = function (desc) {
  const b = createBuffer.call(this, desc);
  liveBuffers.set(b, { size: desc.size, device: this });
  return b;
};
const destroyBuffer = GPUBuffer.prototype.destroy;
GPUBuffer.prototype.destroy = function () {
  liveBuffers.delete(this);
  return destroyBuffer.call(this);
};
const destroyDevice = GPUDevice.prototype.destroy;
GPUDevice.prototype.destroy = function () {
  for (const [b, v] of liveBuffers) if (v.device === this) liveBuffers.delete(b);
  return destroyDevice.call(this);
};
self.gpuLiveBytes = () => {
  let n = 0;
  for (const v of liveBuffers.values()) n += v.size;
  return n;
};
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
