// The PWA example's service worker precaches every module the main entry
// loads: one it misses is fetched from the network, so the app does not
// start offline (scripts/harness TestPWAOffline would time out).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { dirname, join, normalize, relative } from 'node:path';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const repo = join(root, '..');

// modules walks the static imports of file (relative specifiers only) and
// returns every module reached, as repository-relative paths.
function modules(file, seen = new Set()) {
  const rel = relative(repo, file);
  if (seen.has(rel)) return seen;
  seen.add(rel);
  const src = readFileSync(file, 'utf8');
  for (const m of src.matchAll(/^\s*(?:import|export)\s[^'"]*?from\s+'(\.{1,2}\/[^']+)'/gm)) {
    modules(normalize(join(dirname(file), m[1])), seen);
  }
  return seen;
}

test('the PWA service worker precaches every module index.js imports', () => {
  const sw = readFileSync(join(repo, 'examples', 'pwa', 'sw.js'), 'utf8');
  const listed = new Set([...sw.matchAll(/'\.\.\/\.\.\/([^']+)'/g)].map((m) => m[1]));
  const mods = modules(join(root, 'src', 'index.js'));
  assert.ok(mods.size >= 10, `walked only ${[...mods]}`);
  for (const m of mods) assert.ok(listed.has(m), `examples/pwa/sw.js does not precache ${m}`);
});
