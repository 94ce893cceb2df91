// Starts the browsercheck worker for the models named in ?models=a,b and
// settles harnessDone with its parsed report (and a probe with navigator.gpu
// removed).
const models = new URLSearchParams(location.search).get('models').split(',');
const run = (args) => new Promise((resolve, reject) => {
  const w = new Worker('./worker.js');
  w.onmessage = (e) => { w.terminate(); resolve(JSON.parse(e.data)); };
  w.onerror = (e) => reject(new Error('worker error: ' + e.message));
  w.postMessage({ base: location.origin, ...args });
});
// First a probe in a worker whose navigator has no gpu at all, then every
// model in a worker of this WebGPU-less browser.
globalThis.harnessDone = (async () => {
  const hidden = await run({ models: models.slice(0, 1), hideGPU: true, probeOnly: true });
  const main = await run({ models });
  return { ...main, Hidden: hidden.Probe, HiddenError: hidden.Error || '' };
})();
