// Instrumentation for the GPU bench page (bench.js with ?probe=1): the same
// probe runs inside each engine's worker, so both engines' GPU buffers and
// wasm memory are measured the same way, from outside the engine, instead
// of trusting each engine's own report.
//
// probe() is serialized into the worker's source: webgguf's worker through
// createEngine's Worker option (a module blob that imports the real
// worker.js), wllama's by rewriting the blob its worker is created from
// (it has no option for that). It wraps, in the worker's global scope:
//   - GPU.requestAdapter / GPUAdapter.requestDevice: the adapter's features
//     and what the engine asked for (wllama's WebGPU backend asks for
//     shader-f16, which SwiftShader lacks), and a failed device;
//   - GPUDevice.createBuffer / GPUBuffer.destroy: live and peak bytes of
//     GPU buffers (buffers dropped without destroy() count as live: an
//     upper bound);
//   - WebAssembly.Memory (wllama creates its shared memory in JS) and
//     WebAssembly.instantiate(Streaming) (Go's module exports its own):
//     every linear memory, whose byteLength at the end is its peak (wasm
//     memory never shrinks).
// The page asks for a snapshot over a BroadcastChannel once the completion
// is done (a worker busy in a synchronous loop could not answer earlier).
// wllama's pthread workers are not probed; they share the main worker's
// memory, and WebGPU objects live in the worker that made the device.
export function probe(tag) {
  const st = { tag, gpuLive: 0, gpuPeak: 0, gpuBuffers: 0, adapter: null, requested: null, device: false, deviceError: '', lost: '' };
  const mems = new Set();
  if (globalThis.GPUDevice) {
    const sizes = new WeakMap();
    const createBuffer = GPUDevice.prototype.createBuffer;
    GPUDevice.prototype.createBuffer = function (d) {
      const b = createBuffer.call(this, d);
      const n = Number(d && d.size) || 0;
      sizes.set(b, n);
      st.gpuLive += n;
      st.gpuBuffers++;
      st.gpuPeak = Math.max(st.gpuPeak, st.gpuLive);
      return b;
    };
    const destroy = GPUBuffer.prototype.destroy;
    GPUBuffer.prototype.destroy = function () {
      const n = sizes.get(this);
      if (n !== undefined) {
        st.gpuLive -= n;
        sizes.delete(this);
      }
      return destroy.call(this);
    };
    const requestAdapter = GPU.prototype.requestAdapter;
    GPU.prototype.requestAdapter = async function (o) {
      const a = await requestAdapter.call(this, o);
      const info = a && a.info;
      st.adapter = a ? { features: [...a.features].sort(), fallback: !!(a.isFallbackAdapter || (info && info.isFallbackAdapter)),
        vendor: info ? info.vendor : '', architecture: info ? info.architecture : '', description: info ? info.description : '' } : { none: true };
      return a;
    };
    const requestDevice = GPUAdapter.prototype.requestDevice;
    GPUAdapter.prototype.requestDevice = async function (d) {
      st.requested = [...((d && d.requiredFeatures) || [])].map(String).sort();
      try {
        const dev = await requestDevice.call(this, d);
        st.device = true;
        dev.lost.then((i) => { st.lost = `${i.reason}: ${i.message}`; });
        return dev;
      } catch (e) {
        st.deviceError = String((e && e.message) || e);
        throw e;
      }
    };
  }
  const M = WebAssembly.Memory;
  WebAssembly.Memory = new Proxy(M, { construct(t, args, nt) { const m = Reflect.construct(t, args, nt); mems.add(m); return m; } });
  const keep = (r) => {
    const inst = r && (r.instance || r);
    if (inst && inst.exports) for (const v of Object.values(inst.exports)) if (v instanceof M) mems.add(v);
    return r;
  };
  const inst = WebAssembly.instantiate, instS = WebAssembly.instantiateStreaming;
  WebAssembly.instantiate = function (...a) { return inst.apply(this, a).then(keep); };
  if (instS) WebAssembly.instantiateStreaming = function (...a) { return instS.apply(this, a).then(keep); };
  const ch = new BroadcastChannel('bench-probe');
  ch.onmessage = (e) => {
    if (e.data !== 'snap') return;
    let wasm = 0;
    for (const m of mems) wasm += m.buffer.byteLength;
    ch.postMessage({ ...st, wasmBytes: wasm, memories: mems.size });
  };
}

// probeSource is the statement that runs probe(tag) in a worker.
export const probeSource = (tag) => `(${probe.toString()})(${JSON.stringify(tag)});\n`;

// ProbedWorker is a Worker constructor for createEngine: it starts the
// module worker at url from a blob that installs the probe and imports
// it. The import is evaluated before the probe's statement, which still
// runs before any message reaches the worker, so before the engine makes
// its memory or its device.
export class ProbedWorker extends Worker {
  constructor(url, opts) {
    // profile=1 also asks the engine for a per-kernel GPU profile after each
    // completion (worker/enginehost/profile_js.go reads this global at load).
    // depth=N sets the greedy steps the engine keeps in flight
    // (gpu.Backend.SetPipelineDepth, read at load by pageknobs_js.go);
    // batch=N the greedy steps whose tokens share one readback map
    // (gpu.Backend.SetReadbackBatch, likewise).
    const q = new URLSearchParams(location.search);
    const prof = q.get('profile') === '1' ? 'globalThis.webggufProfile = true;\n' : '';
    const depth = Number(q.get('depth')) > 0 ? `globalThis.webggufPipelineDepth = ${Number(q.get('depth'))};\n` : '';
    const batch = Number(q.get('batch')) > 0 ? `globalThis.webggufReadbackBatch = ${Number(q.get('batch'))};\n` : '';
    const src = `import ${JSON.stringify(String(url))};\n${prof}${depth}${batch}${probeSource('webgguf')}`;
    super(URL.createObjectURL(new Blob([src], { type: 'text/javascript' })), { ...opts, type: 'module' });
  }
}

// probeNextScriptBlobs makes the page's URL.createObjectURL prepend the
// probe to JavaScript blobs: wllama builds its worker's whole source as one
// such blob in the page (its pthread workers are made inside that worker).
export function probeNextScriptBlobs(tag) {
  const create = URL.createObjectURL;
  URL.createObjectURL = function (obj) {
    if (obj instanceof Blob && /javascript/.test(obj.type)) obj = new Blob([probeSource(tag), obj], { type: obj.type });
    return create.call(URL, obj);
  };
}

// snapshot asks the probed workers for their state and resolves to the
// replies that arrive within ms.
export function snapshot(ms = 1500) {
  return new Promise((resolve) => {
    const ch = new BroadcastChannel('bench-probe');
    const out = [];
    ch.onmessage = (e) => out.push(e.data);
    ch.postMessage('snap');
    setTimeout(() => { ch.close(); resolve(out); }, ms);
  });
}
