// Frame encode/decode over the generated per-message codec.

import { MAGIC, VERSION, HEADER_SIZE, Kind, Writer, Reader, GlueDecodeError, GlueEncodeError } from './wire.js';
import { MessageType, messages } from './glue.gen.js';

const KIND_NAMES = ['', 'request', 'response', 'event', 'error', 'cancel'];

/**
 * Encodes one frame into a buffer from pool (or a new one) and returns
 * { buffer, length }: the frame is buffer's first length bytes. type is a
 * message name or type id.
 */
export function encodeFrame(kind, id, type, msg, pool) {
  const typeId = typeof type === 'number' ? type : MessageType[type];
  const codec = messages[typeId];
  if (!codec) throw new GlueEncodeError('not_message', '', `type ${type} is not in the schema`);
  if (!(kind >= Kind.Request && kind <= Kind.Cancel)) throw new GlueEncodeError('kind', '', `invalid kind ${kind}`);
  msg = msg || {};
  const size = codec.bound(msg);
  const buffer = pool ? pool.take(size) : new ArrayBuffer(size);
  const w = new Writer(buffer);
  codec.encode(w, msg);
  const dv = w.dv;
  dv.setUint32(0, MAGIC, true);
  dv.setUint16(4, VERSION, true);
  w.u8[6] = kind;
  w.u8[7] = 0;
  dv.setUint32(8, typeId, true);
  dv.setUint32(12, id >>> 0, true);
  dv.setUint32(16, w.off, true);
  return { buffer, length: w.off };
}

/** Encodes one frame into an exactly sized Uint8Array (tests, cross-language fixtures). */
export function encodeFrameBytes(kind, id, type, msg) {
  const { buffer, length } = encodeFrame(kind, id, type, msg);
  return new Uint8Array(buffer, 0, length).slice();
}

/**
 * Reads and checks the header of the frame at the start of bytes (a
 * Uint8Array or ArrayBuffer that may be longer than the frame).
 */
export function decodeHeader(bytes) {
  const u8 = bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes);
  if (u8.byteLength < HEADER_SIZE) throw new GlueDecodeError('truncated', '', 'header', u8.byteLength, 'frame shorter than the 20-byte header');
  const dv = new DataView(u8.buffer, u8.byteOffset, u8.byteLength);
  if (dv.getUint32(0, true) !== MAGIC) throw new GlueDecodeError('bad_magic', '', 'magic', 0, 'frame does not start with GLUE');
  const h = { version: dv.getUint16(4, true), kind: u8[6], flags: u8[7], type: dv.getUint32(8, true), id: dv.getUint32(12, true), length: dv.getUint32(16, true) };
  if (h.version !== VERSION) throw new GlueDecodeError('version', '', 'version', 4, `version ${h.version}, want ${VERSION}`);
  if (!(h.kind >= Kind.Request && h.kind <= Kind.Cancel)) throw new GlueDecodeError('kind', '', 'kind', 6, `unknown kind(${h.kind})`);
  if (h.length < HEADER_SIZE || h.length > u8.byteLength) throw new GlueDecodeError('length', '', 'length', 16, `total length ${h.length} outside [20, ${u8.byteLength}]`);
  return h;
}

/**
 * Decodes the frame at the start of bytes. Returns { kind, type, name, id,
 * length, msg }. Raw and numeric array fields of msg are views into bytes'
 * buffer, not copies. Throws GlueDecodeError.
 */
export function decodeFrame(bytes) {
  const u8 = bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes);
  const h = decodeHeader(u8);
  const codec = messages[h.type];
  if (!codec) throw new GlueDecodeError('unknown_type', '', 'type', 8, `type id ${h.type} is not in the schema`);
  const r = new Reader(u8.subarray(0, h.length), codec.name);
  const msg = codec.decode(r);
  return { kind: h.kind, type: h.type, name: codec.name, id: h.id, length: h.length, msg };
}

/** Names a frame kind for messages. */
export function kindName(k) { return KIND_NAMES[k] || `kind(${k})`; }
