// Helpers shared by the harness pages: the engine's asset URLs as the
// harness serves them, and a tiny test runner whose report the harness reads
// from globalThis.harnessDone.
import { GlueClient } from '/jsbindings/src/protocol.js';
// The codec of the test messages (echo, stream, crash, stats, OPFS
// diagnostics) that the test engine, engine-test.wasm, serves.
import '/jsbindings/test/glue-test.gen.js';

// Relative on purpose: GlueClient resolves them against this page, not the worker.
export const assets = { workerURL: '../../../worker/worker.js', wasmURL: '../../../build/engine-test.wasm', execURL: '/build/wasm_exec.js' };

export function newEngine() {
  return new GlueClient(assets);
}

export function assert(cond, msg) {
  if (!cond) throw new Error('assertion failed: ' + msg);
}

export function withTimeout(p, ms, what) {
  let t;
  return Promise.race([p, new Promise((_, rej) => { t = setTimeout(() => rej(new Error(`${what}: timed out after ${ms} ms`)), ms); })]).finally(() => clearTimeout(t));
}

/** Runs the tests in order; each gets timeoutMs (60 s). Resolves to a report, never rejects. */
export async function runTests(tests, { timeoutMs = 60000 } = {}) {
  const out = document.getElementById('out');
  const results = [];
  for (const [name, fn] of tests) {
    const t0 = performance.now();
    try {
      await withTimeout(fn(), timeoutMs, name);
      results.push({ name, ok: true, ms: performance.now() - t0 });
    } catch (e) {
      results.push({ name, ok: false, ms: performance.now() - t0, error: String((e && e.stack) || e) });
    }
    out.textContent = results.map((r) => `${r.ok ? 'ok  ' : 'FAIL'} ${r.name} ${r.ms.toFixed(1)} ms${r.error ? '\n' + r.error : ''}`).join('\n');
  }
  return { tests: results, crossOriginIsolated: globalThis.crossOriginIsolated, userAgent: navigator.userAgent };
}
