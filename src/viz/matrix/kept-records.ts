/**
 * Access records kept in memory, compactly (typed columns, each distinct key stored once), so a log
 * read once can be binned after its time span and key sample are known, without reading it again.
 * Holds at most `capacity` records: past that the caller reads the log a second time instead, so
 * memory stays bounded however long the log. Pure.
 */
import type { AccessOp, AccessRecord } from "../../access-log/access-record.js";
import { parseKeyText } from "../../keys/key-text.js";
import { ACCESS_OPS, type CanonicalAccessLine } from "../input/canonical-access-line.js";
import { VizArgumentError } from "../input/viz-argument-error.js";
import { ByteStringIndex } from "./byte-string-index.js";
import type { AccessBinner } from "./records-matrix.js";

const OP_CODE: Record<AccessOp, number> = { read: 0, write: 1, scan: 2 };
const FIRST_CAPACITY = 1 << 14;

/** The log held more records than kept: bin them by reading the log again. */
export class KeptRecordsOverflowError extends Error {
  override readonly name = "KeptRecordsOverflowError";
  constructor(readonly capacity: number) {
    super("kept records: the log did not fit; read it again instead");
  }
}

export class KeptRecords {
  count = 0;
  /** True once a record did not fit: what was kept is dropped, and the log must be read again. */
  overflowed = false;
  /** Distinct keys in order of first sight; records refer to them by index. */
  private keys: Buffer[] = [];
  /** The text (UTF-8) each of `keys` was parsed from, numbered alike. */
  private keyTexts = new ByteStringIndex();
  /** The index of the key `parseKey` gave last: `add` follows the parse of its record's key. */
  private lastKeyIndex = -1;
  private tsMs = new Float64Array(FIRST_CAPACITY);
  private key = new Int32Array(FIRST_CAPACITY);
  private op = new Uint8Array(FIRST_CAPACITY);
  private bytes = new Float64Array(FIRST_CAPACITY);
  /** NaN where the record gave no latency. */
  private latencyMs = new Float64Array(FIRST_CAPACITY);

  /** @param onNewKey called with each distinct key once, at its first sight, while records fit */
  constructor(
    readonly capacity: number,
    private readonly onNewKey: (key: Buffer) => void,
  ) {
    if (!Number.isInteger(capacity) || capacity < 0) {
      throw new VizArgumentError("kept records", capacity, "a whole number ≥ 0");
    }
  }

  /**
   * A key's bytes (a `KeyParser`): while records fit, the same Buffer for every record of the key,
   * so a repeated key costs a lookup, not a parse.
   */
  readonly parseKey = (text: string): Buffer => {
    if (this.full) return parseKeyText(text);
    const utf8 = Buffer.from(text, "utf8");
    this.lastKeyIndex = this.keyIndexOf(utf8, 0, utf8.length);
    return this.keys[this.lastKeyIndex]!;
  };

  /** The index of the key whose text (UTF-8) is `text[start, end)`, parsing it at its first sight. */
  private keyIndexOf(text: Buffer, start: number, end: number): number {
    const index = this.keyTexts.lookup(text, start, end);
    if (index >= 0) return index;
    const key = parseKeyText(text.toString("utf8", start, end));
    this.keys.push(key);
    this.onNewKey(key);
    return this.keyTexts.add(text, start, end);
  }

  get full(): boolean {
    return this.overflowed || this.count >= this.capacity;
  }

  /**
   * Keeps a record whose key came from `parseKey`. False when it does not fit: then nothing is
   * kept from here on and what was kept is let go.
   */
  add(record: AccessRecord): boolean {
    if (this.full) {
      this.overflow();
      return false;
    }
    if (this.keys[this.lastKeyIndex] !== record.key) {
      throw new Error("kept records: the record's key is not the one parseKey gave last");
    }
    this.keep(
      record.tsMs,
      this.lastKeyIndex,
      OP_CODE[record.op],
      record.bytes,
      record.latencyMs ?? Number.NaN,
    );
    return true;
  }

  /** `add` for a line read in place from `bytes`: its key is looked up from the line's bytes. */
  addLine(line: CanonicalAccessLine, bytes: Buffer): boolean {
    if (this.full) {
      this.overflow();
      return false;
    }
    const keyIndex = this.keyIndexOf(bytes, line.keyStart, line.keyEnd);
    this.keep(line.tsMs, keyIndex, line.op, line.bytes, line.latencyMs);
    return true;
  }

  /** @param latencyMs NaN for none */
  private keep(tsMs: number, keyIndex: number, op: number, bytes: number, latencyMs: number): void {
    if (this.count === this.tsMs.length) this.grow();
    const at = this.count++;
    this.tsMs[at] = tsMs;
    this.key[at] = keyIndex;
    this.op[at] = op;
    this.bytes[at] = bytes;
    this.latencyMs[at] = latencyMs;
  }

  /** Bins every kept record, looking each distinct key's bin up once. */
  binInto(binner: AccessBinner): void {
    if (this.overflowed) throw new KeptRecordsOverflowError(this.capacity);
    const bins = Int32Array.from(this.keys, (key) => binner.binOf(key));
    for (let at = 0; at < this.count; at++) {
      const latency = this.latencyMs[at]!;
      binner.addToBin(
        bins[this.key[at]!]!,
        this.tsMs[at]!,
        ACCESS_OPS[this.op[at]!]!,
        this.bytes[at]!,
        Number.isNaN(latency) ? undefined : latency,
      );
    }
  }

  private overflow(): void {
    if (this.overflowed) return;
    this.overflowed = true;
    this.count = 0;
    this.keys = [];
    this.keyTexts = new ByteStringIndex();
    this.tsMs = new Float64Array(0);
    this.key = new Int32Array(0);
    this.op = new Uint8Array(0);
    this.bytes = new Float64Array(0);
    this.latencyMs = new Float64Array(0);
  }

  private grow(): void {
    const size = Math.min(this.capacity, this.tsMs.length * 2);
    const grown = <T extends Float64Array | Int32Array | Uint8Array>(old: T, make: (n: number) => T): T => {
      const next = make(size);
      next.set(old);
      return next;
    };
    this.tsMs = grown(this.tsMs, (n) => new Float64Array(n));
    this.key = grown(this.key, (n) => new Int32Array(n));
    this.op = grown(this.op, (n) => new Uint8Array(n));
    this.bytes = grown(this.bytes, (n) => new Float64Array(n));
    this.latencyMs = grown(this.latencyMs, (n) => new Float64Array(n));
  }
}
