// The engine's worker with benchmark page knobs set, for gpu-api.js: a
// greedy readback batch of 3 and 4 steps in flight (the knobs the bench
// page's batch=N and depth=N set; worker/enginehost/pageknobs_js.go reads
// them at each model load, after this module's body ran). A same-origin
// file, since the harness's CSP (worker-src 'self') refuses blob workers.
import '/jsbindings/dist/worker.js';

globalThis.webggufReadbackBatch = 3;
globalThis.webggufPipelineDepth = 4;
