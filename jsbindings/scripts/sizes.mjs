// Prints the size of the npm tarball `make npm` wrote (failing if it is
// missing or lacks the engine or the licence) and the engine.wasm sizes raw,
// gzip -9 and brotli -q 11: what a page downloads.
import { existsSync, readFileSync, statSync } from 'node:fs';
import { gzipSync, brotliCompressSync, constants } from 'node:zlib';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { dirname, join, relative } from 'node:path';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const mb = (n) => `${(n / 1048576).toFixed(2)} MiB`;
const [pack] = JSON.parse(execFileSync('npm', ['pack', '--dry-run', '--json', '--offline', '--ignore-scripts'], { cwd: root, encoding: 'utf8' }));
// The tarball `make npm` wrote: it must be there and hold the engine.
const tgz = join(root, pack.filename);
if (!existsSync(tgz)) throw new Error(`${tgz} is missing: run npm pack in jsbindings (make npm does)`);
const missing = ['dist/engine.wasm', 'dist/wasm_exec.js', 'dist/worker.js', 'dist/webgpu-runtime.js', 'LICENSE'].filter((f) => !pack.files.some((e) => e.path === f));
if (missing.length) throw new Error(`the package lacks ${missing.join(', ')}`);
console.log(`package ${relative(process.cwd(), tgz)}: ${pack.entryCount} files, ${mb(statSync(tgz).size)} packed (tgz), ${mb(pack.unpackedSize)} unpacked`);
const wasm = readFileSync(join(root, 'dist', 'engine.wasm'));
const gz = gzipSync(wasm, { level: 9 }).length;
const br = brotliCompressSync(wasm, { params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: wasm.length } }).length;
console.log(`engine.wasm: ${mb(statSync(join(root, 'dist', 'engine.wasm')).size)} raw, ${mb(gz)} gzip -9, ${mb(br)} brotli 11`);
