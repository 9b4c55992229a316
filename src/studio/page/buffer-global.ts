/**
 * The simulator's keys are Node Buffers (Buffer.compare, subarray, hex and latin1 text). In the
 * worker, the `buffer` package (feross/buffer, the browser Buffer bundlers use) supplies the same
 * class. Imported first by worker.ts, so it is defined before any module that builds a key. Node's
 * `buf.equals` takes any Uint8Array; the package's takes only its Buffers, so equals is widened.
 */
// biome-ignore lint/style/useNodejsImportProtocol: the browser Buffer package (npm "buffer"), not Node's module
import { Buffer } from "buffer";

const equals = Buffer.prototype.equals;
Buffer.prototype.equals = function (other: Uint8Array) {
  return equals.call(
    this,
    Buffer.isBuffer(other) ? other : Buffer.from(other.buffer, other.byteOffset, other.byteLength),
  );
};

(globalThis as { Buffer?: unknown }).Buffer ??= Buffer;
