// Compiled with tsc --noEmit by test/types.test.js: the published .d.ts files
// must describe webgguf/protocol as its users (tests, tools) use it.
import { GlueClient, GlueCallError, GlueCrashedError, MessageType, decodeFrame, encodeFrameBytes, Kind } from '../../src/protocol.js';
import { TestMessageType } from '../glue-test.gen.js';
import type { EchoResponse, StreamChunk, AllTypesInit } from '../glue-test.gen.js';

async function demo(): Promise<number> {
  const engine = new GlueClient({ workerURL: '/worker.js', wasmURL: '/engine.wasm', execURL: '/wasm_exec.js' });
  await engine.ready;
  const ac = new AbortController();
  const r = (await engine.call('EchoRequest', { data: new Uint8Array([1, 2]), text: 'hi' }, { signal: ac.signal })) as EchoResponse;
  const n: number = r.data.length;
  engine.release(r);
  const s = engine.stream('StreamRequest', { count: 3, chunkBytes: 4 });
  for await (const ev of s) {
    const c = ev.msg as StreamChunk;
    const seq: number = c.seq;
    void seq;
  }
  try {
    await engine.call('CrashRequest', { mode: 'bogus' });
  } catch (e) {
    if (e instanceof GlueCrashedError) return -1;
    if (e instanceof GlueCallError) return e.kind.length;
  }
  const all: AllTypesInit = { i64: 5n, i64s: [1n, 2], f32s: new Float32Array(2), strings: ['a'], raws: [new Uint8Array(1)] };
  const f = decodeFrame(encodeFrameBytes(Kind.Request, 1, 'AllTypes', all));
  const id: number = TestMessageType.AllTypes + MessageType.HelloRequest + f.id;
  engine.on('crash', (err) => console.log(err.kind));
  await engine.restart();
  engine.terminate();
  return n + id;
}
void demo;
