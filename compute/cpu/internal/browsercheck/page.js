// Starts the browsercheck worker for the models named in ?models=a,b and
// settles harnessDone with its parsed report.
const models = new URLSearchParams(location.search).get('models').split(',');
globalThis.harnessDone = new Promise((resolve, reject) => {
  const w = new Worker('./worker.js');
  w.onmessage = (e) => resolve(JSON.parse(e.data));
  w.onerror = (e) => reject(new Error('worker error: ' + e.message));
  w.postMessage({ base: location.origin, models });
});
