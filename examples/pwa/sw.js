// The PWA's service worker: precaches the app shell and the engine (worker,
// wasm, wasm_exec.js, the webgguf modules) at install, and answers every GET
// it has cached from the cache first, so the app starts with the network
// off. Models are not cached here: they live in OPFS (engine.models), which
// suits files of hundreds of MB better than the Cache API.
//
// Bump VERSION when any listed file changes; activate deletes old caches.

const VERSION = 'webgguf-pwa-v7';
const SHELL = [
  './', './index.html', './app.js', './app.css', './manifest.webmanifest', './icons/icon-192.png', './icons/icon-512.png',
];
const ENGINE = [
  '../../jsbindings/src/index.js', '../../jsbindings/src/api.js', '../../jsbindings/src/cache.js',
  '../../jsbindings/src/cache-worker.js', '../../jsbindings/src/client.js', '../../jsbindings/src/codec.js', '../../jsbindings/src/errors.js',
  '../../jsbindings/src/embeddings.js', '../../jsbindings/src/fetch.js', '../../jsbindings/src/glue.gen.js', '../../jsbindings/src/openai.js',
  '../../jsbindings/src/pool.js', '../../jsbindings/src/split.js', '../../jsbindings/src/webgguf-error.js', '../../jsbindings/src/wire.js',
  '../../jsbindings/dist/worker.js', '../../jsbindings/dist/engine.wasm', '../../jsbindings/dist/wasm_exec.js',
  '../../jsbindings/dist/webgpu-runtime.js',
];

self.addEventListener('install', (event) => {
  event.waitUntil((async () => {
    const cache = await caches.open(VERSION);
    await cache.addAll([...SHELL, ...ENGINE].map((u) => new Request(new URL(u, self.registration.scope), { cache: 'reload' })));
    await self.skipWaiting();
  })());
});

self.addEventListener('activate', (event) => {
  event.waitUntil((async () => {
    for (const key of await caches.keys()) if (key !== VERSION) await caches.delete(key);
    await self.clients.claim(); // control this first visit's page too
  })());
});

// The engine's worker must be in this worker's scope to be controlled by it
// (Chromium serves a dedicated worker's script and its fetches from the
// service worker whose scope holds the worker's URL), so the page asks for
// the engine under ./engine/ and those requests are answered with the
// package's dist/ files.
const ENGINE_ALIAS = new URL('./engine/', self.registration.scope).pathname;
const ENGINE_DIST = new URL('../../jsbindings/dist/', self.registration.scope).href;

self.addEventListener('fetch', (event) => {
  const req = event.request;
  if (req.method !== 'GET') return;
  const url = new URL(req.url);
  const key = url.origin === self.location.origin && url.pathname.startsWith(ENGINE_ALIAS)
    ? new URL(url.pathname.slice(ENGINE_ALIAS.length), ENGINE_DIST).href
    : req;
  event.respondWith((async () => {
    const cache = await caches.open(VERSION);
    const hit = await cache.match(key, { ignoreSearch: true });
    if (hit) return hit;
    return fetch(key);
  })());
});
