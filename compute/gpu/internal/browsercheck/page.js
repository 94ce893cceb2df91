// Starts the browsercheck worker for the models named in ?models=a,b and
// settles harnessDone with its parsed reports; ?greedy=N compares the first
// N greedy tokens with llama.cpp's (all of them without it).
const q = new URLSearchParams(location.search);
const models = q.get('models').split(',');
const greedy = Number(q.get('greedy') || 0);
globalThis.harnessDone = new Promise((resolve, reject) => {
  const w = new Worker('./worker.js');
  w.onmessage = (e) => resolve(JSON.parse(e.data));
  w.onerror = (e) => reject(new Error('worker error: ' + e.message));
  w.postMessage({ base: location.origin, models, greedy });
});
