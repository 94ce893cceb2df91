// GLUE wire primitives: frame constants, the typed decode error, and the
// Writer/Reader the generated codec (glue.gen.js) is built on. The layout is
// documented in glue/wire.go; both sides must agree byte for byte.

export const MAGIC = 0x45554c47; // "GLUE" read as a little-endian u32
export const VERSION = 1;
export const HEADER_SIZE = 20;

/** Frame kinds (glue.Kind). */
export const Kind = Object.freeze({ Request: 1, Response: 2, Event: 3, Error: 4, Cancel: 5 });

/** Wire types (glue.WireType); arrays are type | ARRAY. */
export const Wire = Object.freeze({ Bool: 1, I32: 2, U32: 3, I64: 4, F32: 5, F64: 6, String: 7, Bytes: 8, ARRAY: 0x80 });

const WIRE_NAMES = ['', 'bool', 'i32', 'u32', 'i64', 'f32', 'f64', 'string', 'bytes'];
const FIXED = [0, 1, 4, 4, 8, 4, 8, 0, 0];
const LE = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

export function wireName(w) {
  const e = w & 0x7f;
  if (!wireValid(w)) return `wire(${w})`;
  return WIRE_NAMES[e] + (w & Wire.ARRAY ? '[]' : '');
}

export function wireValid(w) {
  const e = w & 0x7f;
  return e >= 1 && e <= 8 && (w & 0x70) === 0;
}

/**
 * A frame failed to decode. code matches glue.ErrorCode on the Go side,
 * message is the message type name ('' before it is known), field the schema
 * (Go) field name, offset the byte offset in the frame.
 */
export class GlueDecodeError extends Error {
  constructor(code, msgName, field, offset, detail) {
    const where = msgName && field ? ` in ${msgName}.${field}` : msgName ? ` in ${msgName}` : field ? ` in ${field}` : '';
    super(`glue: decode ${code}${where} at byte ${offset}: ${detail}`);
    this.name = 'GlueDecodeError';
    this.kind = 'decode.' + code;
    this.code = code;
    this.msgName = msgName;
    this.field = field;
    this.offset = offset;
    this.detail = detail;
  }
}

/** A value cannot be encoded (not valid for its field's wire type). */
export class GlueEncodeError extends Error {
  constructor(code, field, detail) {
    super(`glue: encode ${code}${field ? ' in ' + field : ''}: ${detail}`);
    this.name = 'GlueEncodeError';
    this.kind = 'encode.' + code;
    this.code = code;
    this.field = field;
  }
}

const utf8enc = new TextEncoder();
const utf8dec = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

function pad8(off) { return (8 - (off & 7)) & 7; }

/** Upper bounds of encoded sizes, used to take a large enough buffer up front. */
export const bound = {
  fixed: (v, size) => (v === undefined || v === null ? 0 : 4 + size),
  string: (s) => (s ? 15 + 3 * s.length : 0),
  bytes: (b) => (b ? 15 + byteLen(b) : 0),
  array: (a, size) => (a && a.length ? 15 + size * a.length : 0),
  strings: (a) => { if (!a || !a.length) return 0; let n = 15; for (const s of a) n += 4 + 3 * s.length; return n; },
  raws: (a) => { if (!a || !a.length) return 0; let n = 15; for (const b of a) n += 4 + (b ? byteLen(b) : 0); return n; },
};

/** Writer appends fields to a frame in a buffer that is already large enough. */
export class Writer {
  /** @param {ArrayBuffer} buffer */
  constructor(buffer) {
    this.buf = buffer;
    this.u8 = new Uint8Array(buffer);
    this.dv = new DataView(buffer);
    this.off = HEADER_SIZE;
    this.name = '';
  }

  header(id, w) {
    this.dv.setUint16(this.off, id, true);
    this.u8[this.off + 2] = w;
    this.u8[this.off + 3] = 0;
    this.off += 4;
  }

  lenPad(n) {
    this.dv.setUint32(this.off, n, true);
    this.off += 4;
    const p = pad8(this.off);
    this.u8.fill(0, this.off, this.off + p);
    this.off += p;
  }

  bool(id, v) { if (v) { this.header(id, Wire.Bool); this.u8[this.off++] = 1; } }
  i32(id, v) { if (v) { this.header(id, Wire.I32); this.dv.setInt32(this.off, v, true); this.off += 4; } }
  u32(id, v) { if (v) { this.header(id, Wire.U32); this.dv.setUint32(this.off, v, true); this.off += 4; } }
  i64(id, v) {
    if (v === undefined || v === null) return;
    const b = BigInt.asIntN(64, toBigInt(v, this.name));
    if (b === 0n) return;
    this.header(id, Wire.I64); this.dv.setBigInt64(this.off, b, true); this.off += 8;
  }
  f32(id, v) {
    if (v === undefined || v === null) return;
    const f = Math.fround(v);
    if (Object.is(f, 0)) return;
    this.header(id, Wire.F32); this.dv.setFloat32(this.off, f, true); this.off += 4;
  }
  f64(id, v) {
    if (v === undefined || v === null || Object.is(v, 0)) return;
    this.header(id, Wire.F64); this.dv.setFloat64(this.off, v, true); this.off += 8;
  }
  string(id, s) {
    if (!s) return;
    this.header(id, Wire.String);
    this.str(s);
  }
  // str writes a u32 byte length, padding, then UTF-8 bytes.
  str(s, padded = true) {
    if (typeof s !== 'string') throw new GlueEncodeError('wire_type', this.name, `want a string, got ${typeof s}`);
    checkUTF16(s, this.name);
    const lenAt = this.off;
    this.off += 4;
    if (padded) { const p = pad8(this.off); this.u8.fill(0, this.off, this.off + p); this.off += p; }
    const { written } = utf8enc.encodeInto(s, this.u8.subarray(this.off));
    this.dv.setUint32(lenAt, written, true);
    this.off += written;
  }
  bytes(id, b) {
    if (b === undefined || b === null) return;
    const u = asU8(b, this.name);
    if (!u.length) return;
    this.header(id, Wire.Bytes);
    this.lenPad(u.length);
    this.u8.set(u, this.off);
    this.off += u.length;
  }
  boolArray(id, a) {
    if (!a || !a.length) return;
    this.header(id, Wire.Bool | Wire.ARRAY); this.lenPad(a.length);
    for (let i = 0; i < a.length; i++) this.u8[this.off++] = a[i] ? 1 : 0;
  }
  numArray(id, w, a) {
    if (!a || !a.length) return;
    this.header(id, w | Wire.ARRAY); this.lenPad(a.length);
    const dv = this.dv;
    let o = this.off;
    switch (w) {
      case Wire.I32: for (let i = 0; i < a.length; i++, o += 4) dv.setInt32(o, a[i], true); break;
      case Wire.U32: for (let i = 0; i < a.length; i++, o += 4) dv.setUint32(o, a[i], true); break;
      case Wire.F32: for (let i = 0; i < a.length; i++, o += 4) dv.setFloat32(o, a[i], true); break;
      case Wire.F64: for (let i = 0; i < a.length; i++, o += 8) dv.setFloat64(o, a[i], true); break;
      case Wire.I64: for (let i = 0; i < a.length; i++, o += 8) dv.setBigInt64(o, BigInt.asIntN(64, toBigInt(a[i], this.name)), true); break;
    }
    this.off = o;
  }
  stringArray(id, a) {
    if (!a || !a.length) return;
    this.header(id, Wire.String | Wire.ARRAY); this.lenPad(a.length);
    for (const s of a) this.str(s, false);
  }
  bytesArray(id, a) {
    if (!a || !a.length) return;
    this.header(id, Wire.Bytes | Wire.ARRAY); this.lenPad(a.length);
    for (const b of a) {
      const u = asU8(b || new Uint8Array(0), this.name);
      this.dv.setUint32(this.off, u.length, true);
      this.off += 4;
      this.u8.set(u, this.off);
      this.off += u.length;
    }
  }
}

function toBigInt(v, field) {
  try {
    return BigInt(v);
  } catch {
    throw new GlueEncodeError('wire_type', field, `${v} is not an integer`);
  }
}

function byteLen(b) {
  return b.byteLength !== undefined ? b.byteLength : b.length || 0;
}

function asU8(b, field) {
  if (b instanceof Uint8Array) return b;
  if (ArrayBuffer.isView(b)) return new Uint8Array(b.buffer, b.byteOffset, b.byteLength);
  if (b instanceof ArrayBuffer) return new Uint8Array(b);
  if (Array.isArray(b)) return Uint8Array.from(b);
  throw new GlueEncodeError('wire_type', field, 'want a Uint8Array');
}

// checkUTF16 rejects lone surrogates, which TextEncoder would silently replace
// with U+FFFD (the Go side rejects invalid UTF-8 the same way).
function checkUTF16(s, field) {
  if (typeof s.isWellFormed === 'function' ? !s.isWellFormed() : /[\uD800-\uDFFF]/u.test(s)) {
    throw new GlueEncodeError('utf8', field, 'string has a lone surrogate');
  }
}

const EMPTY = new Uint8Array(0);

/** Reader walks the fields of one frame; every length is checked against it. */
export class Reader {
  /** @param {Uint8Array} u8 the frame, exactly its total length */
  constructor(u8, msgName) {
    this.u8 = u8;
    this.dv = new DataView(u8.buffer, u8.byteOffset, u8.byteLength);
    this.off = HEADER_SIZE;
    this.end = u8.byteLength;
    this.msg = msgName;
    this.name = '';
    this.seen = 0n;
  }

  fail(code, at, detail) { return new GlueDecodeError(code, this.msg, this.name, at, detail); }

  need(n, what) {
    if (n > this.end - this.off) throw this.fail('truncated', this.off, `${what} needs ${n} bytes, ${this.end - this.off} left`);
  }

  more() { return this.off < this.end; }

  /** Reads a field header; returns [id, wire, offset]. */
  field() {
    this.name = '';
    this.need(4, 'field header');
    const at = this.off;
    const id = this.dv.getUint16(at, true);
    const w = this.u8[at + 2];
    this.off += 4;
    if (!wireValid(w)) throw this.fail('wire_type', at + 2, `unknown wire type ${w} of field id ${id}`);
    return [id, w, at];
  }

  /** Checks a known field's wire type and that it occurs once. */
  expect(name, bit, got, want, at, id) {
    this.name = name;
    if (got !== want) throw this.fail('wire_type', at + 2, `wire type ${wireName(got)}, schema says ${wireName(want)}`);
    const mask = 1n << BigInt(bit);
    if (this.seen & mask) throw this.fail('duplicate_field', at, `field id ${id} occurs twice`);
    this.seen |= mask;
  }

  lenPad(elem, what) {
    this.need(4, what + ' length');
    const at = this.off;
    const n = this.dv.getUint32(at, true);
    this.off += 4;
    const p = pad8(this.off);
    this.need(p, 'padding');
    this.off += p;
    if (n * elem > this.end - this.off) {
      throw this.fail('truncated', at, `${what} of ${n} × ${elem} bytes overruns the frame (${this.end - this.off} left)`);
    }
    return n;
  }

  bool() { this.need(1, 'bool'); return this.u8[this.off++] !== 0; }
  i32() { this.need(4, 'i32'); const v = this.dv.getInt32(this.off, true); this.off += 4; return v; }
  u32() { this.need(4, 'u32'); const v = this.dv.getUint32(this.off, true); this.off += 4; return v; }
  i64() { this.need(8, 'i64'); const v = this.dv.getBigInt64(this.off, true); this.off += 8; return v; }
  f32() { this.need(4, 'f32'); const v = this.dv.getFloat32(this.off, true); this.off += 4; return v; }
  f64() { this.need(8, 'f64'); const v = this.dv.getFloat64(this.off, true); this.off += 8; return v; }

  utf8(p, at, what) {
    try { return utf8dec.decode(p); } catch { throw this.fail('utf8', at, `${what} is not valid UTF-8`); }
  }

  string() {
    const at = this.off;
    const n = this.lenPad(1, 'string');
    const p = this.u8.subarray(this.off, this.off + n);
    this.off += n;
    return this.utf8(p, at, 'string');
  }

  /** Raw bytes: a view into the frame, not a copy. */
  bytes() {
    const n = this.lenPad(1, 'bytes');
    const p = n ? this.u8.subarray(this.off, this.off + n) : EMPTY;
    this.off += n;
    return p;
  }

  boolArray() {
    const n = this.lenPad(1, 'bool[]');
    const a = new Array(n);
    for (let i = 0; i < n; i++) a[i] = this.u8[this.off + i] !== 0;
    this.off += n;
    return a;
  }

  /** Numeric arrays are views into the frame when aligned (always, for frames at offset 0 of their buffer), else copies. */
  numArray(w) {
    const [T, size, what] = NUM[w];
    const n = this.lenPad(size, what);
    const start = this.u8.byteOffset + this.off;
    let a;
    if (LE && start % size === 0) a = new T(this.u8.buffer, start, n);
    else a = new T(this.u8.buffer.slice(start, start + n * size));
    if (!LE) { const dv = this.dv; for (let i = 0; i < n; i++) a[i] = GET[w](dv, this.off + i * size); }
    this.off += n * size;
    return a;
  }

  stringArray() {
    const n = this.lenPad(4, 'string[]');
    const a = new Array(n);
    for (let i = 0; i < n; i++) {
      const at = this.off;
      this.need(4, 'element length');
      const m = this.dv.getUint32(this.off, true);
      this.off += 4;
      this.need(m, 'element');
      a[i] = this.utf8(this.u8.subarray(this.off, this.off + m), at, `string ${i}`);
      this.off += m;
    }
    return a;
  }

  bytesArray() {
    const n = this.lenPad(4, 'bytes[]');
    const a = new Array(n);
    for (let i = 0; i < n; i++) {
      this.need(4, 'element length');
      const m = this.dv.getUint32(this.off, true);
      this.off += 4;
      this.need(m, 'element');
      a[i] = m ? this.u8.subarray(this.off, this.off + m) : EMPTY;
      this.off += m;
    }
    return a;
  }

  /** Skips the payload of a field this schema does not know. */
  skip(w) {
    const e = w & 0x7f;
    const size = FIXED[e];
    if (!(w & Wire.ARRAY)) {
      if (size) { this.need(size, 'unknown field'); this.off += size; return; }
      const n = this.lenPad(1, 'unknown field'); // advances off: read it before adding
      this.off += n;
      return;
    }
    if (size) { const n = this.lenPad(size, 'unknown array'); this.off += size * n; return; }
    const n = this.lenPad(4, 'unknown array');
    for (let i = 0; i < n; i++) {
      this.need(4, 'element length');
      const m = this.dv.getUint32(this.off, true);
      this.off += 4;
      this.need(m, 'element');
      this.off += m;
    }
  }
}

const NUM = {
  [Wire.I32]: [Int32Array, 4, 'i32[]'],
  [Wire.U32]: [Uint32Array, 4, 'u32[]'],
  [Wire.I64]: [BigInt64Array, 8, 'i64[]'],
  [Wire.F32]: [Float32Array, 4, 'f32[]'],
  [Wire.F64]: [Float64Array, 8, 'f64[]'],
};
const GET = {
  [Wire.I32]: (dv, o) => dv.getInt32(o, true),
  [Wire.U32]: (dv, o) => dv.getUint32(o, true),
  [Wire.I64]: (dv, o) => dv.getBigInt64(o, true),
  [Wire.F32]: (dv, o) => dv.getFloat32(o, true),
  [Wire.F64]: (dv, o) => dv.getFloat64(o, true),
};
