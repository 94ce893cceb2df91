// The npm package's metadata and contents (issue 27): licence, links, the
// files `npm pack` puts in the tarball. dist/ is built by `make npm`; where
// it is absent the checks on its files only look at package.json.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));

test('package.json names the licence, the repository and the authors', () => {
  assert.equal(pkg.license, 'MIT');
  assert.equal(pkg.author, 'the webgguf authors');
  assert.match(pkg.repository.url, /github\.com\/webgguf\/webgguf\.git$/);
  assert.equal(pkg.repository.directory, 'jsbindings');
  assert.equal(pkg.homepage, 'https://github.com/webgguf/webgguf#readme');
  assert.equal(pkg.bugs.url, 'https://github.com/webgguf/webgguf/issues');
});

test('the package claims browsers, not Node', () => {
  // It needs Worker, WebAssembly and the Origin Private File System: it does
  // not run in Node (only its tests do), so no engines.node.
  assert.equal(pkg.engines?.node, undefined);
  assert.ok(Array.isArray(pkg.browserslist) && pkg.browserslist.length > 0);
});

test('the package LICENSE is the repository LICENSE, MIT, the webgguf authors', () => {
  const here = readFileSync(join(root, 'LICENSE'), 'utf8');
  assert.equal(here, readFileSync(join(root, '..', 'LICENSE'), 'utf8'));
  assert.match(here, /^MIT License\n\nCopyright \(c\) 2026 the webgguf authors\n/);
});

// The notices name every module the release engine.wasm links (go list
// -deps of ./wasm for js/wasm) and are the repository's file.
test('the third-party notices cover every module in engine.wasm', () => {
  const here = readFileSync(join(root, 'THIRD_PARTY_NOTICES.md'), 'utf8');
  assert.equal(here, readFileSync(join(root, '..', 'THIRD_PARTY_NOTICES.md'), 'utf8'));
  const mods = execFileSync('go', ['list', '-deps', '-f', '{{if .Module}}{{.Module.Path}} {{.Module.Version}}{{end}}', './wasm'],
    { cwd: join(root, '..'), encoding: 'utf8', env: { ...process.env, GOOS: 'js', GOARCH: 'wasm' } });
  for (const line of new Set(mods.split('\n').filter(Boolean))) {
    const [path, version] = line.split(' ');
    if (path === 'github.com/webgguf/webgguf') continue;
    assert.ok(here.includes(`| ${path} | ${version} |`), `${path} ${version} is not in THIRD_PARTY_NOTICES.md`);
  }
});

test('npm pack ships the licence, the sources and every export, no tests', () => {
  const [pack] = JSON.parse(execFileSync('npm', ['pack', '--dry-run', '--json', '--offline', '--ignore-scripts'],
    { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }));
  const files = new Set(pack.files.map((f) => f.path));
  assert.equal(pack.filename, `webgguf-${pkg.version}.tgz`);
  for (const f of ['LICENSE', 'THIRD_PARTY_NOTICES.md', 'README.md', 'package.json', 'src/index.js', 'src/index.d.ts']) {
    assert.ok(files.has(f), `${f} is not in the package`);
  }
  for (const f of files) {
    assert.ok(/^(LICENSE|THIRD_PARTY_NOTICES\.md|README\.md|package\.json|src\/.+|dist\/.+)$/.test(f), `${f} should not be in the package`);
  }
  // Every export target is shipped; those under dist/ only once make npm built it.
  for (const target of Object.values(pkg.exports).flatMap((t) => (typeof t === 'string' ? [t] : Object.values(t)))) {
    const f = target.replace(/^\.\//, '');
    if (f.startsWith('dist/') && !existsSync(join(root, 'dist'))) continue;
    assert.ok(files.has(f), `export ${target} is not in the package`);
  }
});
