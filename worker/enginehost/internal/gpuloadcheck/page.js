// Starts the gpuloadcheck worker on ?models=name:n,… (n: how many of the
// llama.cpp reference's greedy prompts to generate; ?greedy=N: only the
// first N tokens of each) and settles harnessDone with its parsed reports.
const q = new URLSearchParams(location.search);
const models = q.get('models').split(',').map((m) => m.split(':'));
const greedy = Number(q.get('greedy')) || 0;
globalThis.harnessDone = (async () => {
  const loads = [];
  for (const [name, n] of models) {
    const ref = await (await fetch(`/testdata/ref/${name}.ref.json`)).json();
    const prompts = ref.prompts.filter((p) => p.greedy && p.greedy.length).slice(0, Number(n));
    // The first model's load is first cancelled after 4 MiB of weights.
    loads.push({ url: `${location.origin}/testdata/models/${name}.gguf`, prompts: prompts.map((p) => p.prompt), lengths: prompts.map((p) => (greedy ? Math.min(greedy, p.greedy.length) : p.greedy.length)), cancelAt: loads.length ? 0 : 4 << 20 });
  }
  return new Promise((resolve, reject) => {
    const w = new Worker('./worker.js');
    w.onmessage = (e) => resolve(JSON.parse(e.data));
    w.onerror = (e) => reject(new Error('worker error: ' + e.message));
    w.postMessage(loads);
  });
})();
