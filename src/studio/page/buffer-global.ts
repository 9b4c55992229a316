/**
 * The simulator's keys are Node Buffers (Buffer.compare, subarray, hex and latin1 text). In the
 * worker, the `buffer` package (feross/buffer, the browser Buffer bundlers use) supplies the same
 * class. Imported first by worker.ts, so it is defined before any module that builds a key. Node's
 * `buf.equals` takes any Uint8Array; the package's takes only its Buffers, so equals is widened.
 * The package's `Buffer.from(uint8Array)` copies through `new Uint8Array(source)`, which for its
 * Buffers (typed arrays with another prototype) walks the iterator: a quarter of a run's time. A
 * new Buffer filled by `set` (a typed array's fast path) is the same result, at a sixth of the cost
 * of a copy then viewed as a Buffer (the key planner copies a key edge per bucket).
 * The package's `Buffer.compare` and `buf.compare` copy both sides (the target) that way before
 * comparing, though they only read them: with the split checks' millions of key comparisons, that
 * made a run four to six times slower than in Node. They compare in place here, as Node does.
 * The package makes every Buffer a Uint8Array and then swaps its prototype (`Object.setPrototypeOf`,
 * a runtime call per key), and its `subarray` (through the species constructor) goes through the
 * whole `Buffer(arg, offset, length)` dispatch to get there. Node instead constructs a subclass of
 * Uint8Array whose prototype leads to Buffer's (`FastBuffer`); so does this file, for `alloc`,
 * `allocUnsafe`, `from(bytes)` and `subarray`, which the key planner calls for every range edge.
 */
import { Buffer } from "buffer/index.js";

const equals = Buffer.prototype.equals;
Buffer.prototype.equals = function (other: Uint8Array) {
  return equals.call(
    this,
    Buffer.isBuffer(other)
      ? other
      : Buffer.from(other.buffer as ArrayBuffer, other.byteOffset, other.byteLength),
  );
};

/** A Buffer from birth: a Uint8Array subclass whose prototype chain runs through Buffer.prototype. */
class FastBuffer extends Uint8Array {}
Object.setPrototypeOf(FastBuffer.prototype, Buffer.prototype);
// `subarray` (and every typed-array method that makes an array) builds through the species.
Object.defineProperty(Buffer, Symbol.species, { value: FastBuffer, configurable: true });

const isSize = (size: unknown): size is number =>
  typeof size === "number" && Number.isInteger(size) && size >= 0 && size <= 0x7fffffff;

const allocUnsafe = Buffer.allocUnsafe;
Buffer.allocUnsafe = (size: number) =>
  (isSize(size) ? new FastBuffer(size) : allocUnsafe.call(Buffer, size)) as Buffer;

const alloc = Buffer.alloc;
Buffer.alloc = ((size: number, fill?: unknown, encoding?: BufferEncoding) =>
  isSize(size) && fill === undefined
    ? new FastBuffer(size)
    : alloc.call(Buffer, size, fill as string, encoding)) as typeof Buffer.alloc;

const from = Buffer.from as (value: unknown, offsetOrEncoding?: unknown, length?: number) => Buffer;
Buffer.from = ((value: unknown, offsetOrEncoding?: unknown, length?: number) => {
  if (value instanceof Uint8Array && offsetOrEncoding === undefined) {
    const copy = new FastBuffer(value.length);
    copy.set(value);
    return copy as Buffer;
  }
  return from.call(Buffer, value, offsetOrEncoding, length);
}) as typeof Buffer.from;

/** -1, 0 or 1 as `a[aStart, aEnd)` sorts before, with or after `b[bStart, bEnd)`, byte by byte. */
function compareRanges(
  a: Uint8Array,
  aStart: number,
  aEnd: number,
  b: Uint8Array,
  bStart: number,
  bEnd: number,
) {
  const aLength = Math.max(aEnd - aStart, 0);
  const bLength = Math.max(bEnd - bStart, 0);
  const length = Math.min(aLength, bLength);
  for (let i = 0; i < length; i++) {
    const x = a[aStart + i]!;
    const y = b[bStart + i]!;
    if (x !== y) return x < y ? -1 : 1;
  }
  return aLength < bLength ? -1 : aLength > bLength ? 1 : 0;
}

function requireBytes(value: unknown, name: string): asserts value is Uint8Array {
  if (!(value instanceof Uint8Array)) {
    throw new TypeError(`The "${name}" argument must be a Buffer or Uint8Array; received ${typeof value}`);
  }
}

Buffer.compare = (a: Uint8Array, b: Uint8Array) => {
  requireBytes(a, "buf1");
  requireBytes(b, "buf2");
  return compareRanges(a, 0, a.length, b, 0, b.length);
};

Buffer.prototype.compare = function (
  this: Buffer,
  target: Uint8Array,
  start = 0,
  end = target.length,
  thisStart = 0,
  thisEnd = this.length,
) {
  requireBytes(target, "target");
  if (start < 0 || end > target.length || thisStart < 0 || thisEnd > this.length) {
    throw new RangeError(
      `out of range index: target [${start}, ${end}) of ${target.length} bytes, source [${thisStart}, ${thisEnd}) of ${this.length}`,
    );
  }
  return compareRanges(this, thisStart, thisEnd, target, start, end);
};

(globalThis as { Buffer?: unknown }).Buffer ??= Buffer;
