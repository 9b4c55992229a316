/**
 * The simulator's keys are Node Buffers (Buffer.compare, subarray, hex and latin1 text). In the
 * worker, the `buffer` package (feross/buffer, the browser Buffer bundlers use) supplies the same
 * class. Imported first by worker.ts, so it is defined before any module that builds a key. Node's
 * `buf.equals` takes any Uint8Array; the package's takes only its Buffers, so equals is widened.
 * The package's `Buffer.from(uint8Array)` copies through `new Uint8Array(source)`, which for its
 * Buffers (typed arrays with another prototype) walks the iterator: a quarter of a run's time. A
 * copy by `set` (a typed array's fast path) viewed as a Buffer is the same result.
 */
import { Buffer } from "buffer";

const equals = Buffer.prototype.equals;
Buffer.prototype.equals = function (other: Uint8Array) {
  return equals.call(
    this,
    Buffer.isBuffer(other) ? other : Buffer.from(other.buffer, other.byteOffset, other.byteLength),
  );
};

const from = Buffer.from as (value: unknown, offsetOrEncoding?: unknown, length?: number) => Buffer;
Buffer.from = ((value: unknown, offsetOrEncoding?: unknown, length?: number) => {
  if (value instanceof Uint8Array && offsetOrEncoding === undefined) {
    const copy = new Uint8Array(value.length);
    copy.set(value);
    return from.call(Buffer, copy.buffer, 0, copy.length);
  }
  return from.call(Buffer, value, offsetOrEncoding, length);
}) as typeof Buffer.from;

(globalThis as { Buffer?: unknown }).Buffer ??= Buffer;
