// The engine's worker with a device-loss test hook, for hostile.js. It
// records the GPUDevices the engine requests and, on the BroadcastChannel
// 'webgguf-test-gpu', destroys the newest one: at once ({ op: 'destroy' })
// or at its n-th queue.writeBuffer, i.e. in the middle of a model load
// ({ op: 'destroy-at-write', n }, acknowledged with { op: 'armed' }).
// GPUDevice.destroy() settles device.lost with reason 'destroyed', the way
// a driver reset or a GPU process crash settles it with 'unknown'; the hook
// posts { op: 'destroyed', reason, at } once it has. A same-origin file,
// since the harness's CSP (worker-src 'self') refuses blob workers.
import '/jsbindings/dist/worker.js';

const chan = new BroadcastChannel('webgguf-test-gpu');
const devices = [];
const requestDevice = GPUAdapter.prototype.requestDevice;
GPUAdapter.prototype.requestDevice = async function (desc) {
  const d = await requestDevice.call(this, desc);
  devices.push(d);
  return d;
};

function destroy(at) {
  const d = devices[devices.length - 1];
  if (!d) {
    chan.postMessage({ op: 'error', message: `destroy (${at}): the engine has requested no device` });
    return;
  }
  d.lost.then((info) => chan.postMessage({ op: 'destroyed', reason: info.reason, at, devices: devices.length }));
  d.destroy();
}

let armedAt = 0; // destroy at this writeBuffer call (0: not armed)
let writes = 0;
const writeBuffer = GPUQueue.prototype.writeBuffer;
GPUQueue.prototype.writeBuffer = function (...args) {
  const r = writeBuffer.apply(this, args);
  if (armedAt && ++writes === armedAt) {
    armedAt = 0;
    destroy(`writeBuffer ${writes}`);
  }
  return r;
};

chan.onmessage = (e) => {
  if (e.data.op === 'destroy') destroy('now');
  else if (e.data.op === 'destroy-at-write') {
    armedAt = e.data.n;
    writes = 0;
    chan.postMessage({ op: 'armed' });
  }
};
