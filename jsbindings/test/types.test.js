import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

// tsc checks the JavaScript against its JSDoc (checkJs), the examples in
// test/types/ against the .d.ts files, and test/types/impl.ts each declared
// value against the code that implements it.
test('the .d.ts files type-check the examples and match the code (tsc --noEmit, checkJs)', () => {
  const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
  try {
    execFileSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.json')], { cwd: root, encoding: 'utf8' });
  } catch (e) {
    assert.fail(`tsc failed:\n${e.stdout}${e.stderr}`);
  }
});

// declared lists the values (not types) a .d.ts file exports.
function declared(file) {
  const src = readFileSync(join(root, 'src', file), 'utf8');
  const names = [...src.matchAll(/^export declare (?:class|function|const) (\w+)/gm)].map((m) => m[1]);
  for (const m of src.matchAll(/^export \{ ([\w, ]+) \} from/gm)) names.push(...m[1].split(',').map((s) => s.trim()));
  return names.sort();
}

test('the main entry exports the public API only, as index.d.ts declares', async () => {
  const mod = await import('../src/index.js');
  const want = ['ErrorCode', 'ModelCache', 'WebGGUFEngine', 'WebGGUFError', 'createEngine'];
  assert.deepEqual(Object.keys(mod).sort(), want);
  assert.deepEqual(declared('index.d.ts'), want);
});

test('webgguf/protocol exports the GLUE client, as protocol.d.ts declares', async () => {
  const mod = await import('../src/protocol.js');
  assert.deepEqual(Object.keys(mod).sort(), declared('protocol.d.ts'));
  for (const gone of ['Engine', 'EngineError', 'EngineCrashedError']) assert.ok(!(gone in mod), `${gone} is still exported`);
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  assert.deepEqual(pkg.exports['./protocol'], { types: './src/protocol.d.ts', default: './src/protocol.js' });
});
