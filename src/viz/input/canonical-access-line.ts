/**
 * The common access-log line read straight from its bytes, making no string and no object:
 * `{"ts":N,"key":"K","op":"read|write|scan"[,"bytes":N][,"latencyMs":N]}` with a printable-ASCII
 * key free of quotes and backslashes, and plain numbers of at most 15 digits. Every line it accepts
 * reads the same as through the full parser (`parseAccessJsonRecord`); it declines any other line,
 * which the caller then parses in full. Pure.
 */
import type { AccessOp, AccessRecord, KeyParser } from "../../access-log/access-record.js";

/** Ops by code: `CanonicalAccessLine.op` indexes this. */
export const ACCESS_OPS: readonly AccessOp[] = ["read", "write", "scan"];

const ascii = (text: string) => Uint8Array.from(text, (char) => char.charCodeAt(0));
const TS_FIELD = ascii('{"ts":');
const KEY_FIELD = ascii(',"key":"');
const OP_FIELD = ascii('","op":"');
const OP_NAMES = ACCESS_OPS.map(ascii);
const OP_FIRST_BYTES = OP_NAMES.map((name) => name[0]!);
const BYTES_FIELD = ascii(',"bytes":');
const LATENCY_FIELD = ascii(',"latencyMs":');
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const CLOSE_BRACE = 0x7d;
const DIGIT_0 = 0x30;
const DOT = 0x2e;
/** 1 for printable ASCII but the quote and the backslash: key text that needs no unescaping or decoding. */
const PLAIN_KEY_BYTE = Uint8Array.from({ length: 256 }, (_, byte) =>
  byte >= 0x20 && byte <= 0x7f && byte !== QUOTE && byte !== BACKSLASH ? 1 : 0,
);
/**
 * Up to 15 digits a number is below 2^53 and so is 10^(its decimals): the quotient of the two exact
 * values rounds once, exactly as `Number(text)` rounds the decimal text. Longer numbers are declined.
 */
const MAX_DIGITS = 15;
const POWERS_OF_TEN = Array.from({ length: MAX_DIGITS + 1 }, (_, exponent) => 10 ** exponent);

/** One line's fields, read in place; reused from line to line. */
export class CanonicalAccessLine {
  tsMs = 0;
  /** The key's text is `bytes[keyStart, keyEnd)`: ASCII, so its bytes are its UTF-8. */
  keyStart = 0;
  keyEnd = 0;
  /** Index into `ACCESS_OPS`. */
  op = 0;
  bytes = 0;
  /** NaN when the line gives no latency. */
  latencyMs = Number.NaN;
  /** The value `number` read last. */
  private number = 0;

  /** Reads `bytes[start, end)` into this; false when the line is not in the common form (the fields then mean nothing). */
  read(bytes: Uint8Array, start: number, end: number): boolean {
    let at = after(bytes, start, end, TS_FIELD);
    if (at < 0) return false;
    at = this.readNumber(bytes, at, end);
    if (at < 0) return false;
    this.tsMs = this.number;
    at = after(bytes, at, end, KEY_FIELD);
    if (at < 0) return false;
    this.keyStart = at;
    while (at < end && PLAIN_KEY_BYTE[bytes[at]!] === 1) at++;
    this.keyEnd = at;
    at = after(bytes, at, end, OP_FIELD);
    if (at < 0) return false;
    this.op = bytes[at] === OP_FIRST_BYTES[0] ? 0 : bytes[at] === OP_FIRST_BYTES[1] ? 1 : 2;
    at = after(bytes, at, end, OP_NAMES[this.op]!);
    if (at < 0 || at >= end || bytes[at] !== QUOTE) return false;
    at++;
    this.bytes = 0;
    if (after(bytes, at, end, BYTES_FIELD) >= 0) {
      at = this.readNumber(bytes, at + BYTES_FIELD.length, end);
      if (at < 0) return false;
      this.bytes = this.number;
    }
    this.latencyMs = Number.NaN;
    if (after(bytes, at, end, LATENCY_FIELD) >= 0) {
      at = this.readNumber(bytes, at + LATENCY_FIELD.length, end);
      if (at < 0) return false;
      this.latencyMs = this.number;
    }
    return at + 1 === end && bytes[at] === CLOSE_BRACE;
  }

  /** The record the full parser gives for the line last read from `bytes`. */
  toRecord(bytes: Buffer, parseKey: KeyParser): AccessRecord {
    const record: AccessRecord = {
      tsMs: this.tsMs,
      key: parseKey(bytes.toString("latin1", this.keyStart, this.keyEnd)),
      op: ACCESS_OPS[this.op]!,
      bytes: this.bytes,
    };
    if (!Number.isNaN(this.latencyMs)) record.latencyMs = this.latencyMs;
    return record;
  }

  /**
   * Reads JSON's plain number ≥ 0 (no sign, exponent or leading zero) of at most 15 digits from
   * `bytes[at, end)` into `number`; returns where it ends, or -1 when there is none such.
   */
  private readNumber(bytes: Uint8Array, start: number, end: number): number {
    let at = start;
    let mantissa = 0;
    let decimals = -1;
    for (; at < end; at++) {
      const digit = bytes[at]! - DIGIT_0;
      if (digit >= 0 && digit <= 9) {
        mantissa = mantissa * 10 + digit;
        if (decimals >= 0) decimals++;
      } else if (bytes[at] === DOT && decimals < 0 && at > start) decimals = 0;
      else break;
    }
    const digits = at - start - (decimals >= 0 ? 1 : 0);
    const leadingZero = bytes[start] === DIGIT_0 && at - start > 1 && bytes[start + 1] !== DOT;
    if (digits === 0 || digits > MAX_DIGITS || decimals === 0 || leadingZero) return -1;
    this.number = decimals > 0 ? mantissa / POWERS_OF_TEN[decimals]! : mantissa;
    return at;
  }
}

/** Where `expected` ends when `bytes[at, end)` starts with it, else -1. */
function after(bytes: Uint8Array, at: number, end: number, expected: Uint8Array): number {
  if (at + expected.length > end) return -1;
  for (let index = 0; index < expected.length; index++) {
    if (bytes[at + index] !== expected[index]) return -1;
  }
  return at + expected.length;
}
