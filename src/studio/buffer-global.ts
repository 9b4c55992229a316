/**
 * The simulator's keys are Node Buffers (Buffer.compare, subarray, hex and latin1 text). In the
 * worker, the `buffer` package (feross/buffer, the browser Buffer bundlers use) supplies the same
 * class. Imported first by worker.ts, so it is defined before any module that builds a key.
 */
import { Buffer } from "buffer";

(globalThis as { Buffer?: unknown }).Buffer ??= Buffer;
