// Round-trip latency of small messages and throughput of 1 MiB messages
// through the real engine worker (Go in wasm, GLUE frames, pooled transferred
// buffers), with a plain-JS echo worker as the floor. Run by
// scripts/harness/bench_test.go (BenchmarkWorker).
import { newEngine } from './common.js';

const q = new URLSearchParams(location.search);
const SMALL = Number(q.get('small') || 3000);
const BIG = Number(q.get('big') || 300);

function stats(ms) {
  const s = [...ms].sort((a, b) => a - b);
  const at = (p) => s[Math.min(s.length - 1, Math.floor(p * s.length))];
  return { n: s.length, p50: at(0.5), p99: at(0.99), mean: s.reduce((a, b) => a + b, 0) / s.length, max: s[s.length - 1] };
}

function fill(n) {
  const b = new Uint8Array(n);
  for (let i = 0; i < n; i++) b[i] = (i * 131 + 7) & 255;
  return b;
}

async function engineSmall(e, n) {
  const data = fill(16);
  const ms = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    const r = await e.call('EchoRequest', { data });
    ms.push(performance.now() - t0);
    e.release(r);
  }
  return ms;
}

async function engineBig(e, n, inFlight) {
  const data = fill(1 << 20);
  const ms = [];
  const t0 = performance.now();
  let next = 0;
  async function lane() {
    while (next < n) {
      next++;
      const t = performance.now();
      const r = await e.call('EchoRequest', { data });
      ms.push(performance.now() - t);
      if (r.data.length !== data.length || r.data[12345] !== data[12345]) throw new Error('bad echo');
      e.release(r);
    }
  }
  await Promise.all(Array.from({ length: inFlight }, lane));
  const secs = (performance.now() - t0) / 1000;
  return { ...stats(ms), payloadMBps: (n * (1 << 20)) / secs / 1e6 };
}

async function plainSmall(n, size) {
  const w = new Worker('./plain-echo-worker.js', { type: 'module' });
  let resolve;
  w.onmessage = (e) => resolve(e.data);
  const ms = [];
  let buf = new ArrayBuffer(size);
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    const p = new Promise((r) => { resolve = r; });
    w.postMessage(buf, [buf]);
    buf = await p;
    ms.push(performance.now() - t0);
  }
  w.terminate();
  return ms;
}

async function run() {
  const e = newEngine();
  await e.ready;
  await engineSmall(e, 300); // warm up JIT, pools, Go heap
  await engineBig(e, 10, 1);
  const g0 = await e.call('StatsRequest', {});
  const small = stats(await engineSmall(e, SMALL));
  const g1 = await e.call('StatsRequest', {});
  const smallGC = { gcs: g1.numGC - g0.numGC, pauseMs: Number(g1.pauseNs - g0.pauseNs) / 1e6, heapSysMiB: Number(g1.heapSys) / 2 ** 20 };
  const big1 = await engineBig(e, BIG, 1);
  const big4 = await engineBig(e, BIG, 4);
  await plainSmall(300, 64);
  const plain = stats(await plainSmall(SMALL, 64));
  const plainBig = stats(await plainSmall(BIG, 1 << 20));
  const pool = { hits: e.pool.hits, misses: e.pool.misses };
  e.terminate();
  const res = { small, smallGC, big1, big4, plain, plainBig, pool, crossOriginIsolated: globalThis.crossOriginIsolated };
  document.getElementById('out').textContent = JSON.stringify(res, null, 1);
  return res;
}

globalThis.harnessDone = run();
