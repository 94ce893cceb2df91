// Cross-language codec check, driven by glue/crosslang_test.go:
//   node crosslang.mjs DIR
// DIR/cases.json lists frames Go encoded (with the values Go put in them, as
// typed JSON) and malformed frames with the error Go reported. For each good
// frame this script decodes it and compares every field with the expected
// value, then encodes the expected value itself into DIR/<name>.js.bin for Go
// to decode. For each bad frame it records the JS decoder's error. Results go
// to DIR/results.json; the exit status is 0 even on mismatches (Go judges).
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { encodeFrameBytes, decodeFrame } from '../src/codec.js';
import { GlueDecodeError } from '../src/wire.js';
import '../test/glue-test.gen.js'; // AllTypes and the other test messages

const dir = process.argv[2];
const cases = JSON.parse(readFileSync(join(dir, 'cases.json'), 'utf8'));
const results = { good: [], bad: [] };

function bitsF32(x) { const dv = new DataView(new ArrayBuffer(4)); dv.setFloat32(0, x, true); return dv.getUint32(0, true).toString(16); }
function bitsF64(x) { const dv = new DataView(new ArrayBuffer(8)); dv.setFloat64(0, x, true); return dv.getBigUint64(0, true).toString(16); }
function fromBitsF32(h) { const dv = new DataView(new ArrayBuffer(4)); dv.setUint32(0, parseInt(h, 16), true); return dv.getFloat32(0, true); }
function fromBitsF64(h) { const dv = new DataView(new ArrayBuffer(8)); dv.setBigUint64(0, BigInt('0x' + h), true); return dv.getFloat64(0, true); }

// toJS turns an expected JSON value into what the JS API uses for that wire type.
function toJS(wire, v) {
  const arr = wire.endsWith('[]');
  const el = arr ? wire.slice(0, -2) : wire;
  const one = (x) => {
    switch (el) {
      case 'i64': return BigInt(x);
      case 'f32': return fromBitsF32(x);
      case 'f64': return fromBitsF64(x);
      case 'bytes': return new Uint8Array(Buffer.from(x, 'base64'));
      default: return x;
    }
  };
  if (!arr) return one(v);
  const a = v.map(one);
  switch (el) {
    case 'i32': return Int32Array.from(a);
    case 'u32': return Uint32Array.from(a);
    case 'i64': return BigInt64Array.from(a);
    case 'f32': return Float32Array.from(a);
    case 'f64': return Float64Array.from(a);
    default: return a;
  }
}

// canon renders a decoded JS value in the expected JSON form.
function canon(wire, v) {
  const arr = wire.endsWith('[]');
  const el = arr ? wire.slice(0, -2) : wire;
  const one = (x) => {
    switch (el) {
      case 'i64': return x.toString();
      case 'f32': return bitsF32(x);
      case 'f64': return bitsF64(x);
      case 'bytes': return Buffer.from(x).toString('base64');
      default: return x;
    }
  };
  return arr ? Array.from(v, one) : one(v);
}

function typeOK(wire, v) {
  const ctor = { 'i32[]': Int32Array, 'u32[]': Uint32Array, 'i64[]': BigInt64Array, 'f32[]': Float32Array, 'f64[]': Float64Array, bytes: Uint8Array }[wire];
  if (ctor) return v instanceof ctor;
  if (wire.endsWith('[]')) return Array.isArray(v);
  return { bool: 'boolean', i32: 'number', u32: 'number', f32: 'number', f64: 'number', i64: 'bigint', string: 'string' }[wire] === typeof v;
}

for (const c of cases.good) {
  const res = { name: c.name, errors: [] };
  try {
    const frame = decodeFrame(new Uint8Array(readFileSync(join(dir, c.name + '.bin'))));
    if (frame.name !== c.type || frame.id !== c.id || frame.kind !== c.kind) res.errors.push(`header ${frame.name}/${frame.id}/${frame.kind}`);
    const input = {};
    for (const f of c.fields || []) {
      const got = frame.msg[f.js];
      if (!typeOK(f.wire, got)) res.errors.push(`${f.js}: wrong JS type ${Object.prototype.toString.call(got)}`);
      const g = JSON.stringify(canon(f.wire, got)), w = JSON.stringify(f.value);
      if (g !== w) res.errors.push(`${f.js}: got ${g} want ${w}`);
      input[f.js] = toJS(f.wire, f.value);
    }
    const extra = Object.keys(frame.msg).filter((k) => !(c.fields || []).some((f) => f.js === k));
    if (extra.length) res.errors.push(`unexpected fields ${extra}`);
    writeFileSync(join(dir, c.name + '.js.bin'), encodeFrameBytes(c.kind, c.id, c.type, input));
  } catch (e) {
    res.errors.push(String(e && e.stack || e));
  }
  results.good.push(res);
}

for (const c of cases.bad) {
  try {
    decodeFrame(new Uint8Array(readFileSync(join(dir, c.name + '.bin'))));
    results.bad.push({ name: c.name, accepted: true });
  } catch (e) {
    if (e instanceof GlueDecodeError) results.bad.push({ name: c.name, code: e.code, field: e.field, offset: e.offset, message: e.message });
    else results.bad.push({ name: c.name, untyped: String(e && e.stack || e) });
  }
}

writeFileSync(join(dir, 'results.json'), JSON.stringify(results, null, 1));
