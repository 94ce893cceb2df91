// Tests of webgpu/runtime.js's adapter choice against a fake navigator.gpu:
// the engine asks for a 'high-performance' adapter, and headless Chromium on
// Linux with an NVIDIA GPU answers that with null while it returns the GPU
// when asked without a preference (measured on the lent H100 with
// scripts/harness/gpuprobe).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import vm from 'node:vm';

const source = readFileSync(new URL('../../webgpu/runtime.js', import.meta.url), 'utf8');

// runtimeWith loads runtime.js into a fresh context whose navigator.gpu
// answers requestAdapter(opts) with answer(opts), recording every call.
function runtimeWith(answer) {
  const asked = [];
  const gpu = { requestAdapter: async (opts) => { asked.push(opts); return answer(opts); } };
  const ctx = vm.createContext({ navigator: { gpu } });
  vm.runInContext(source, ctx);
  return { rt: ctx.webggufGPURuntime(), asked };
}

function fakeAdapter(vendor) {
  const features = new Set(['timestamp-query']);
  return {
    features,
    limits: { maxBufferSize: 1 << 30, maxStorageBufferBindingSize: 1 << 27 },
    info: { vendor, architecture: 'test' },
    requestDevice: async ({ requiredFeatures, requiredLimits }) => ({
      features: new Set(requiredFeatures),
      limits: requiredLimits,
      lost: new Promise(() => {}),
    }),
  };
}

test('open asks again without the power preference when the preferred adapter is null', async () => {
  const { rt, asked } = runtimeWith((opts) => (opts && opts.powerPreference ? null : fakeAdapter('nvidia')));
  const info = await rt.open('high-performance', [], () => {});
  assert.equal(info.vendor, 'nvidia');
  assert.equal(info.features, 'timestamp-query');
  assert.equal(info.limits.maxBufferSize, 1 << 30);
  assert.equal(asked.length, 2);
  assert.equal(asked[0].powerPreference, 'high-performance');
  assert.equal(asked[1], undefined);
});

test('open keeps the preferred adapter when there is one', async () => {
  const { rt, asked } = runtimeWith((opts) => fakeAdapter(opts && opts.powerPreference ? 'preferred' : 'other'));
  const info = await rt.open('high-performance', [], () => {});
  assert.equal(info.vendor, 'preferred');
  assert.equal(asked.length, 1);
});

test('open fails with "returned null" when no adapter comes either way', async () => {
  const { rt, asked } = runtimeWith(() => null);
  await assert.rejects(rt.open('high-performance', [], () => {}), /requestAdapter returned null/);
  assert.equal(asked.length, 2);
  const again = runtimeWith(() => null);
  await assert.rejects(again.rt.open('', [], () => {}), /requestAdapter returned null/);
  assert.equal(again.asked.length, 1, 'no preference: asked once');
});
