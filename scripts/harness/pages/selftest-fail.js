// A page that fails on purpose, for the harness's own test.
console.log('page-console-marker');
const w = new Worker('./selftest-worker.js', { type: 'module' });
globalThis.harnessDone = new Promise((resolve, reject) => {
  w.onmessage = () => reject(new Error('deliberate failure marker'));
});
