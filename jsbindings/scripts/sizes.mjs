// Prints the npm package's size (what `npm pack` would publish) and the
// engine.wasm sizes raw, gzip -9 and brotli -q 11: what a page downloads.
import { readFileSync, statSync } from 'node:fs';
import { gzipSync, brotliCompressSync, constants } from 'node:zlib';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const mb = (n) => `${(n / 1048576).toFixed(2)} MiB`;
const [pack] = JSON.parse(execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: root, encoding: 'utf8' }));
console.log(`package ${pack.filename}: ${pack.entryCount} files, ${mb(pack.size)} packed (tgz), ${mb(pack.unpackedSize)} unpacked`);
const wasm = readFileSync(join(root, 'dist', 'engine.wasm'));
const gz = gzipSync(wasm, { level: 9 }).length;
const br = brotliCompressSync(wasm, { params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: wasm.length } }).length;
console.log(`engine.wasm: ${mb(statSync(join(root, 'dist', 'engine.wasm')).size)} raw, ${mb(gz)} gzip -9, ${mb(br)} brotli 11`);
