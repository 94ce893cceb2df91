import { test } from 'node:test';
import assert from 'node:assert/strict';
import { encodeFrameBytes, decodeFrame, encodeFrame } from '../src/codec.js';
import { GlueDecodeError, GlueEncodeError, Kind } from '../src/wire.js';
import { BufferPool } from '../src/pool.js';
import './glue-test.gen.js'; // the test messages (EchoRequest, AllTypes, ...)

// The frame layout written out by hand from glue/wire.go (the same bytes as
// glue's TestGoldenFrame), not produced by either encoder.
const golden = new Uint8Array([
  0x47, 0x4c, 0x55, 0x45, 1, 0, 1, 0, 18, 0, 0, 0, 7, 0, 0, 0, 58, 0, 0, 0,
  1, 0, 8, 0, 3, 0, 0, 0, 0, 0, 0, 0, 0xaa, 0xbb, 0xcc,
  2, 0, 7, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0x68, 0x69,
  3, 0, 3, 0, 2, 1, 0, 0,
]);

test('golden frame encodes and decodes', () => {
  const b = encodeFrameBytes(Kind.Request, 7, 'EchoRequest', { data: new Uint8Array([0xaa, 0xbb, 0xcc]), text: 'hi', delayMs: 258 });
  assert.deepEqual(b, golden);
  const f = decodeFrame(golden);
  assert.equal(f.name, 'EchoRequest');
  assert.equal(f.id, 7);
  assert.equal(f.kind, Kind.Request);
  assert.deepEqual([...f.msg.data], [0xaa, 0xbb, 0xcc]);
  assert.equal(f.msg.text, 'hi');
  assert.equal(f.msg.delayMs, 258);
});

test('raw and numeric arrays decode as views into the frame', () => {
  const { buffer } = encodeFrame(Kind.Response, 1, 'AllTypes', { raw: new Uint8Array([1, 2, 3]), f32s: [1.5, -2], f64s: [Math.PI], i64s: [-5n, 1n << 62n] });
  const f = decodeFrame(buffer);
  assert.equal(f.msg.raw.buffer, buffer);
  assert.equal(f.msg.f32s.buffer, buffer);
  assert.ok(f.msg.f32s instanceof Float32Array);
  assert.deepEqual([...f.msg.f32s], [1.5, -2]);
  assert.deepEqual([...f.msg.f64s], [Math.PI]);
  assert.deepEqual([...f.msg.i64s], [-5n, 1n << 62n]);
});

test('missing fields decode as zero values', () => {
  const f = decodeFrame(encodeFrameBytes(Kind.Response, 1, 'AllTypes', {}));
  assert.equal(f.length, 20);
  assert.equal(f.msg.b, false);
  assert.equal(f.msg.i64, 0n);
  assert.equal(f.msg.s, '');
  assert.equal(f.msg.raw.length, 0);
  assert.ok(f.msg.u32s instanceof Uint32Array);
});

test('malformed frames give typed errors with field and offset', () => {
  const cases = [
    [golden.slice(0, 10), 'truncated', 'header', 10],
    [Object.assign(golden.slice(), { 0: 0x58 }), 'bad_magic', 'magic', 0],
    [Object.assign(golden.slice(), { 4: 2 }), 'version', 'version', 4],
    [Object.assign(golden.slice(), { 16: 59 }), 'length', 'length', 16],
    [Object.assign(golden.slice(), { 8: 99 }), 'unknown_type', 'type', 8],
    [Object.assign(golden.slice(), { 27: 0x80 }), 'truncated', 'Data', 24],
    [Object.assign(golden.slice(), { 22: 7 }), 'wire_type', 'Data', 22],
    [Object.assign(golden.slice(), { 48: 0xff }), 'utf8', 'Text', 39],
  ];
  for (const [frame, code, field, offset] of cases) {
    assert.throws(() => decodeFrame(frame), (e) => {
      assert.ok(e instanceof GlueDecodeError, String(e));
      assert.deepEqual([e.code, e.field, e.offset], [code, field, offset], e.message);
      assert.equal(e.kind, 'decode.' + code);
      return true;
    });
  }
});

test('every truncation of a frame is a typed error or a shorter valid frame', () => {
  const full = encodeFrameBytes(Kind.Event, 3, 'AllTypes', {
    b: true, i32: -3, s: 'héllo', raw: new Uint8Array([9, 8]), strings: ['a', '', 'ü'], raws: [new Uint8Array([1])], u32s: [1, 2], bools: [true, false],
  });
  for (let cut = 0; cut < full.length; cut++) {
    const f = full.slice(0, cut);
    if (cut >= 20) new DataView(f.buffer).setUint32(16, cut, true);
    try { decodeFrame(f); } catch (e) { assert.ok(e instanceof GlueDecodeError, `cut ${cut}: ${e}`); }
  }
});

test('encode rejects values the wire cannot carry', () => {
  assert.throws(() => encodeFrameBytes(Kind.Request, 1, 'EchoRequest', { text: 'a\uD800b' }), GlueEncodeError);
  assert.throws(() => encodeFrameBytes(Kind.Request, 1, 'NoSuchMessage', {}), GlueEncodeError);
  assert.throws(() => encodeFrameBytes(9, 1, 'EchoRequest', {}), GlueEncodeError);
});

test('pool hands back buffers by size class', () => {
  const p = new BufferPool();
  const a = p.take(5000);
  assert.equal(a.byteLength, 8192);
  p.give(a);
  assert.equal(p.take(8000), a);
  assert.equal(p.hits, 1);
  p.give(new ArrayBuffer(1000)); // not a pool size: dropped
  const big = p.take(1 << 20);
  assert.equal(big.byteLength, 1 << 20);
});

test('random corruption of valid frames gives only typed errors (20k mutants)', () => {
  let seed = 12345;
  const rnd = (n) => { seed = (seed * 1103515245 + 12345) >>> 0; return seed % n; };
  const bases = [
    encodeFrameBytes(Kind.Request, 1, 'AllTypes', { b: true, i32: -1, u32: 7, i64: -9n, f32: 1.5, f64: 2.5, s: 'x✓', raw: new Uint8Array([1, 2, 3]), bools: [true], i32s: [1, -2], u32s: [3], i64s: [4n], f32s: [0.5], f64s: [0.25], strings: ['a', 'bc'], raws: [new Uint8Array([5])], appended: 1 }),
    golden,
    encodeFrameBytes(Kind.Response, 2, 'HelloResponse', { protocol: 1, engine: 'e', requests: [16, 18] }),
  ];
  let accepted = 0;
  for (let i = 0; i < 20000; i++) {
    const f = bases[rnd(bases.length)].slice();
    for (let k = 1 + rnd(4); k > 0; k--) f[rnd(f.length)] = rnd(256);
    const cut = rnd(4) === 0 ? rnd(f.length + 1) : f.length;
    try {
      decodeFrame(f.subarray(0, cut));
      accepted++;
    } catch (e) {
      assert.ok(e instanceof GlueDecodeError, `mutant ${i}: ${e && e.stack}`);
      assert.ok(e.offset >= 0 && e.offset <= cut, `mutant ${i}: offset ${e.offset} outside ${cut}`);
    }
  }
  assert.ok(accepted > 0 && accepted < 20000, `accepted ${accepted}`);
});

test('bytes fields accept ArrayBuffer, typed arrays and plain arrays', () => {
  for (const data of [new Uint8Array([1, 2, 3]).buffer, new Uint16Array([0x0201, 0x03]), [1, 2, 3]]) {
    const f = decodeFrame(encodeFrameBytes(Kind.Request, 1, 'EchoRequest', { data }));
    assert.ok(f.msg.data.length >= 3 && f.msg.data[0] === 1 && f.msg.data[1] === 2, String(data));
  }
  assert.throws(() => encodeFrameBytes(Kind.Request, 1, 'AllTypes', { i64: 1.5 }), GlueEncodeError);
});

test('frames at an unaligned offset decode numeric arrays by copy, same values', () => {
  const msg = { f32s: [1.5, -2.25, 3], f64s: [Math.E], i64s: [-1n, 7n], i32s: [-9, 9], u32s: [4000000000] };
  const frame = encodeFrameBytes(Kind.Event, 5, 'AllTypes', msg);
  const shifted = new Uint8Array(frame.length + 3);
  shifted.set(frame, 3);
  const f = decodeFrame(shifted.subarray(3));
  assert.deepEqual([...f.msg.f32s], msg.f32s);
  assert.deepEqual([...f.msg.f64s], msg.f64s);
  assert.deepEqual([...f.msg.i64s], msg.i64s);
  assert.deepEqual([...f.msg.i32s], msg.i32s);
  assert.deepEqual([...f.msg.u32s], msg.u32s);
  assert.notEqual(f.msg.f32s.buffer, shifted.buffer); // copied, since unaligned
});
