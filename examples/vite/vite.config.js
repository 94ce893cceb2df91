import { defineConfig } from 'vite';

export default defineConfig({
  base: './', // the built app works from any folder
  build: {
    target: 'es2022',
    // Vite inlines assets under 4 KiB as data: URLs; the engine's worker.js
    // must stay a same-origin file (a data: worker has an opaque origin and
    // a strict CSP forbids it).
    assetsInlineLimit: (file) => (file.includes('/jsbindings/dist/') || file.includes('/webgguf/dist/') ? false : undefined),
  },
  // The engine's assets are loaded at run time by URL: leave the package
  // out of dependency pre-bundling, which would move it away from them.
  optimizeDeps: { exclude: ['webgguf'] },
});
