/**
 * Field codecs: each writes one value into the key so that, within a bucket, the byte order of
 * keys equals the logical order of the value tuples (see docs/keys.md for each format).
 */
import { FieldValueError, KeyDecodeError } from "./errors.js";
import type { CodecSpec, FieldValue, TimeUnit } from "./types.js";

/** The encoder's reusable scratch buffer; it grows when a long value needs room. */
export class KeyWriter {
  buf: Buffer;
  pos = 0;

  constructor(capacity = 8192) {
    this.buf = Buffer.allocUnsafe(capacity);
  }

  ensure(extra: number): void {
    if (this.pos + extra <= this.buf.length) return;
    const grown = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.pos + extra));
    this.buf.copy(grown, 0, 0, this.pos);
    this.buf = grown;
  }

  bytes(bytes: Uint8Array): void {
    this.ensure(bytes.length);
    const buf = this.buf;
    let pos = this.pos;
    for (let i = 0; i < bytes.length; i++) buf[pos++] = bytes[i]!;
    this.pos = pos;
  }

  /** A copy of what was written, exactly as long as the key. */
  take(): Buffer {
    const length = this.pos;
    const key = Buffer.allocUnsafe(length);
    // A plain loop beats Buffer#copy's call overhead for key-sized copies.
    if (length <= 64) for (let i = 0; i < length; i++) key[i] = this.buf[i]!;
    else this.buf.copy(key, 0, 0, length);
    return key;
  }
}

export interface DecodedValue {
  value: FieldValue;
  /** Position just after the value's bytes. */
  end: number;
}

export interface FieldCodec {
  /** True for reverse timestamps: byte order is the reverse of time order. */
  readonly descending: boolean;
  /** False when byte order is not the values' order (a reversed uint): a range over it is no key range. */
  readonly ordered: boolean;
  /** True for strings: a query may bind a prefix of the value. */
  readonly prefixable: boolean;
  write(w: KeyWriter, value: FieldValue | undefined): void;
  /** Writes the bytes every value starting with `prefix` starts with (no terminator). */
  writePrefix(w: KeyWriter, prefix: string): void;
  read(key: Uint8Array, pos: number): DecodedValue;
}

export interface CodecContext {
  field: string;
  layout: "text" | "binary";
  /** The text layout's separator byte (unused in binary layout). */
  separator: number;
  /** Whether this field is the key's last segment. */
  last: boolean;
}

export function makeFieldCodec(spec: CodecSpec, ctx: CodecContext): FieldCodec {
  switch (spec.type) {
    case "string":
      return stringCodec(spec.raw ? rawFormat(ctx) : escapedFormat(ctx), ctx.field);
    case "reverse-domain":
      return reverseDomainCodec(escapedFormat(ctx), ctx.field);
    case "uint":
      return uintCodec(
        ctx.field,
        ctx.layout === "text" ? { digits: uintWidth(spec) } : { bytes: uintBytes(spec) },
      );
    case "reversed-uint":
      return reversedUintCodec(
        ctx.field,
        ctx.layout === "text" ? { digits: uintWidth(spec) } : { bytes: uintBytes(spec) },
      );
    case "int64":
      return int64Codec(ctx);
    case "timestamp":
      return timestampCodec(spec.unit, spec.reverse === true, ctx);
    case "enum":
      return enumCodec(spec.values, ctx);
  }
}

/** Decimal digits of the largest value of `bytes` bytes: 1→3, 2→5, 4→10, 8→20. */
export function uintWidth(spec: { width?: number; bytes?: 1 | 2 | 4 | 8 }): number {
  return spec.width ?? String(2n ** BigInt(8 * (spec.bytes ?? 8)) - 1n).length;
}

export function uintBytes(spec: { bytes?: 1 | 2 | 4 | 8 }): 1 | 2 | 4 | 8 {
  return spec.bytes ?? 8;
}

// ---------------------------------------------------------------------------------------------
// Strings

/**
 * How a layout writes string bytes. ASCII bytes are classified by `action`; bytes ≥ 0x80 (UTF-8
 * continuation and lead bytes) always pass through, so byte order stays Unicode code point order.
 */
interface StringFormat {
  /** Per ASCII byte: PASS, ESCAPE or REJECT. */
  action: Uint8Array;
  /** Writes an escaped byte (at most 3 bytes); returns the position after it. */
  escape(buf: Buffer, pos: number, byte: number): number;
  terminator: Uint8Array;
  /** Why a REJECT byte is not allowed, for the error message. */
  rejectReason: string;
  /** Reads the string's bytes starting at pos, unescaped, and the position after its terminator. */
  read(key: Uint8Array, pos: number): { bytes: Uint8Array; end: number };
}

const PASS = 0;
const ESCAPE = 1;
const REJECT = 2;
const HEX_DIGITS = Buffer.from("0123456789ABCDEF");
const UTF8 = new TextDecoder("utf-8", { fatal: true });
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * Escaped strings. Text layout: the separator S ends the value and E = S + 1 is the escape byte;
 * every byte ≤ E is written as E and two uppercase hex digits. Content bytes are then all > S, so a
 * shorter value sorts first, and an escaped byte sorts below every unescaped one, as its value does.
 * Binary layout (memcomparable, as CockroachDB): 0x00 is written 00 FF and the value ends with 00 01.
 */
function escapedFormat(ctx: CodecContext): StringFormat {
  if (ctx.layout === "binary") {
    return {
      action: asciiActions((byte) => (byte === 0 ? ESCAPE : PASS)),
      escape(buf, pos) {
        buf[pos] = 0x00;
        buf[pos + 1] = 0xff;
        return pos + 2;
      },
      terminator: Uint8Array.of(0x00, 0x01),
      rejectReason: "",
      read(key, pos) {
        const out: number[] = [];
        for (let i = pos; i < key.length; i++) {
          const byte = key[i]!;
          if (byte !== 0) {
            out.push(byte);
            continue;
          }
          const next = key[++i];
          if (next === 0x01) return { bytes: Uint8Array.from(out), end: i + 1 };
          if (next !== 0xff) break;
          out.push(0);
        }
        throw new KeyDecodeError(`field "${ctx.field}": string is not terminated by 00 01`, {
          problem: "bad-field",
        });
      },
    };
  }
  const separator = ctx.separator;
  const escapeByte = separator + 1;
  return {
    action: asciiActions((byte) => (byte <= escapeByte ? ESCAPE : PASS)),
    escape(buf, pos, byte) {
      buf[pos] = escapeByte;
      buf[pos + 1] = HEX_DIGITS[byte >> 4]!;
      buf[pos + 2] = HEX_DIGITS[byte & 15]!;
      return pos + 3;
    },
    terminator: new Uint8Array(0),
    rejectReason: "",
    read(key, pos) {
      let i = pos;
      // Most values escape nothing: their bytes are read in place.
      while (i < key.length && key[i]! > escapeByte) i++;
      if (i === key.length || key[i] === separator) return { bytes: key.subarray(pos, i), end: i };
      const out = Array.from(key.subarray(pos, i));
      for (; i < key.length && key[i] !== separator; i++) {
        const byte = key[i]!;
        if (byte > escapeByte) {
          out.push(byte);
          continue;
        }
        if (byte !== escapeByte)
          throw new KeyDecodeError(`field "${ctx.field}": unescaped byte ${byte} at byte ${i}`, {
            problem: "bad-field",
            at: i,
          });
        const escaped = Number.parseInt(String.fromCharCode(key[i + 1] ?? 0, key[i + 2] ?? 0), 16);
        // Only the encoder's own spelling: an escapable byte, in uppercase hex.
        if (
          !(escaped <= escapeByte) ||
          HEX_DIGITS[escaped >> 4] !== key[i + 1] ||
          HEX_DIGITS[escaped & 15] !== key[i + 2]
        ) {
          throw new KeyDecodeError(`field "${ctx.field}": bad escape at byte ${i}`, {
            problem: "bad-field",
            at: i,
          });
        }
        out.push(escaped);
        i += 2;
      }
      return { bytes: Uint8Array.from(out), end: i };
    },
  };
}

/**
 * Raw strings: written as is. Text: ended by the separator, which they may not contain. Binary:
 * ended by 00, which they may not contain, except as the key's last segment, which ends with the
 * key (Apache Phoenix's VARCHAR row-key format).
 */
function rawFormat(ctx: CodecContext): StringFormat {
  const terminator = ctx.layout === "text" ? ctx.separator : 0;
  const terminated = ctx.layout === "binary" && !ctx.last;
  const shown =
    ctx.layout === "text" ? `the separator "${String.fromCharCode(terminator)}"` : "a NUL (\\u0000)";
  return {
    action: asciiActions((byte) => (byte === terminator ? REJECT : PASS)),
    escape: () => {
      throw new Error("raw strings never escape");
    },
    terminator: terminated ? Uint8Array.of(0) : new Uint8Array(0),
    rejectReason: `contains ${shown}, which raw strings may not contain (use an escaped string: {type: string} without raw)`,
    read(key, pos) {
      let end = pos;
      while (end < key.length && key[end] !== terminator) end++;
      if (terminated && end === key.length) {
        throw new KeyDecodeError(`field "${ctx.field}": raw string is not terminated by 00`, {
          problem: "bad-field",
        });
      }
      return { bytes: key.slice(pos, end), end: terminated ? end + 1 : end };
    },
  };
}

function asciiActions(classify: (byte: number) => number): Uint8Array {
  const actions = new Uint8Array(128);
  for (let byte = 0; byte < 128; byte++) actions[byte] = classify(byte);
  return actions;
}

function writeString(
  w: KeyWriter,
  text: string,
  format: StringFormat,
  field: string,
  terminate: boolean,
): void {
  // Every UTF-16 unit becomes at most 3 bytes, escaped or not.
  w.ensure(text.length * 3 + format.terminator.length);
  const { action } = format;
  const buf = w.buf;
  let pos = w.pos;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code >= 0x80) {
      // Restart from the value's start (w.pos is still there) on its UTF-8 bytes.
      pos = writeStringBytes(w, utf8Bytes(text, field), format, field);
      break;
    }
    const act = action[code];
    if (act === PASS) buf[pos++] = code;
    else if (act === ESCAPE) pos = format.escape(buf, pos, code);
    else
      throw new FieldValueError(field, `${JSON.stringify(text)} ${format.rejectReason}`, {
        problem: "forbidden-character",
        value: text,
      });
  }
  if (terminate) for (const byte of format.terminator) buf[pos++] = byte;
  w.pos = pos;
}

/** The non-ASCII path: classifies the UTF-8 bytes; returns the position after them. */
function writeStringBytes(w: KeyWriter, bytes: Uint8Array, format: StringFormat, field: string): number {
  const buf = w.buf; // ensured by writeString: UTF-8 never takes more than 3 bytes per UTF-16 unit
  let pos = w.pos;
  for (const byte of bytes) {
    const act = byte < 0x80 ? format.action[byte] : PASS;
    if (act === PASS) buf[pos++] = byte;
    else if (act === ESCAPE) pos = format.escape(buf, pos, byte);
    else {
      const text = UTF8.decode(bytes);
      throw new FieldValueError(field, `${JSON.stringify(text)} ${format.rejectReason}`, {
        problem: "forbidden-character",
        value: text,
      });
    }
  }
  return pos;
}

function utf8Bytes(text: string, field: string): Buffer {
  if (LONE_SURROGATE.test(text)) {
    throw new FieldValueError(field, `${JSON.stringify(text)} is not well-formed Unicode (lone surrogate)`, {
      problem: "malformed-unicode",
      value: text,
    });
  }
  return Buffer.from(text, "utf8");
}

function decodeUtf8(bytes: Uint8Array, field: string): string {
  try {
    return UTF8.decode(bytes);
  } catch {
    throw new KeyDecodeError(`field "${field}": bytes are not valid UTF-8`, { problem: "bad-field" });
  }
}

function requireString(value: FieldValue | undefined, field: string, what: string): string {
  if (typeof value === "string") return value;
  throw new FieldValueError(field, `${describe(value)} is not ${what}; expected a string`, {
    problem: "wrong-type",
    value,
  });
}

function stringCodec(format: StringFormat, field: string): FieldCodec {
  return {
    descending: false,
    ordered: true,
    prefixable: true,
    write(w, value) {
      writeString(w, requireString(value, field, "a string"), format, field, true);
    },
    writePrefix(w, prefix) {
      writeString(w, prefix, format, field, false);
    },
    read(key, pos) {
      const { bytes, end } = format.read(key, pos);
      return { value: decodeUtf8(bytes, field), end };
    },
  };
}

/** `www.example.com` is stored as the escaped string `com.example.www`, so a domain's subdomains sort together. */
function reverseDomainCodec(format: StringFormat, field: string): FieldCodec {
  const strings = stringCodec(format, field);
  return {
    descending: false,
    ordered: true,
    prefixable: false,
    write(w, value) {
      strings.write(w, reverseLabels(requireString(value, field, "a domain name")));
    },
    writePrefix() {
      throw new Error("reverse-domain fields take no prefix");
    },
    read(key, pos) {
      const { value, end } = strings.read(key, pos);
      return { value: reverseLabels(value as string), end };
    },
  };
}

export function reverseLabels(domain: string): string {
  return domain.split(".").reverse().join(".");
}

// ---------------------------------------------------------------------------------------------
// Integers: every integer codec maps its value to an unsigned integer u in [0, max] and writes u
// as fixed-width decimal digits (text) or fixed-width big-endian bytes (binary). Fixed width keeps
// numeric order equal to byte order. Reversed fields write the complement of every digit (9 − d)
// or byte (255 − b), i.e. max − u, so larger values sort first.

const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);
const DIGIT_0 = 0x30;
const TWO_32 = 2 ** 32;

type Representation = { digits: number } | { bytes: 1 | 2 | 4 | 8 };

/** Writes and reads u; `big` (by default when max exceeds 2^53 − 1): u travels as bigint, else as a number. */
interface UnsignedFormat {
  readonly big: boolean;
  readonly max: bigint;
  write(w: KeyWriter, u: number | bigint): void;
  read(key: Uint8Array, pos: number, field: string): number | bigint;
  readonly length: number;
}

function unsignedFormat(repr: Representation, complement: boolean, big?: boolean): UnsignedFormat {
  const max = "digits" in repr ? 10n ** BigInt(repr.digits) - 1n : 2n ** BigInt(8 * repr.bytes) - 1n;
  big ??= max > MAX_SAFE;
  return "digits" in repr
    ? decimalFormat(repr.digits, complement, big, max)
    : binaryFormat(repr.bytes, complement, big, max);
}

/** u as `width` decimal digits (each "9" − d when complemented). */
function decimalFormat(width: number, complement: boolean, big: boolean, max: bigint): UnsignedFormat {
  const flip = complement ? 9 : 0;
  // Digit d is written as the byte zero + step × d: "0" + d, or "9" − d when complemented.
  const zero = complement ? 0x39 : DIGIT_0;
  const step = complement ? -1 : 1;
  return {
    big,
    max,
    length: width,
    write(w, u) {
      w.ensure(width);
      const buf = w.buf;
      const last = w.pos + width - 1;
      if (typeof u === "number") {
        // Two int32 halves of 8 digits each keep the loop in integer arithmetic (u < 2^53).
        const high = Math.floor(u / 1e8);
        let part = u - high * 1e8;
        for (let i = 0; i < width; i++) {
          if (i === 8) part = high;
          const quotient = (part / 10) | 0;
          buf[last - i] = zero + step * (part - quotient * 10);
          part = quotient;
        }
      } else {
        const text = u.toString().padStart(width, "0");
        for (let i = 0; i < width; i++)
          buf[last - width + 1 + i] = zero + step * (text.charCodeAt(i) - DIGIT_0);
      }
      w.pos = last + 1;
    },
    read(key, pos, field) {
      // Below 2^53 (not big) every partial value is a whole number below the final one: exact.
      let text = "";
      let value = 0;
      for (let i = pos; i < pos + width; i++) {
        const digit = (key[i] ?? 0) - DIGIT_0;
        if (!(digit >= 0 && digit <= 9)) {
          throw new KeyDecodeError(`field "${field}": expected ${width} decimal digits at byte ${pos}`, {
            problem: "bad-field",
            at: pos,
          });
        }
        if (big) text += String(Math.abs(flip - digit));
        else value = value * 10 + Math.abs(flip - digit);
      }
      return big ? BigInt(text) : value;
    },
  };
}

/** u as `bytes` big-endian bytes (each inverted when complemented). */
function binaryFormat(bytes: number, complement: boolean, big: boolean, max: bigint): UnsignedFormat {
  const mask = complement ? 0xff : 0;
  const wordMask = complement ? 0xffffffff : 0;
  return {
    big,
    max,
    length: bytes,
    write(w, u) {
      w.ensure(bytes);
      const buf = w.buf;
      const pos = w.pos;
      if (typeof u === "bigint") {
        buf.writeBigUInt64BE(complement ? max - u : u, pos);
      } else if (bytes === 8) {
        const high = Math.floor(u / TWO_32);
        buf.writeUInt32BE((high ^ wordMask) >>> 0, pos);
        buf.writeUInt32BE(((u - high * TWO_32) ^ wordMask) >>> 0, pos + 4);
      } else {
        for (let i = bytes - 1; i >= 0; i--) {
          buf[pos + i] = (u & 0xff) ^ mask;
          u = Math.floor(u / 256);
        }
      }
      w.pos = pos + bytes;
    },
    read(key, pos, field) {
      if (pos + bytes > key.length)
        throw new KeyDecodeError(`field "${field}": expected ${bytes} bytes at byte ${pos}`, {
          problem: "bad-field",
          at: pos,
        });
      let u = 0n;
      for (let i = pos; i < pos + bytes; i++) u = (u << 8n) | BigInt(key[i]! ^ mask);
      return big ? u : Number(u);
    },
  };
}

/** An integer codec: `toUnsigned` validates and maps the value; `fromUnsigned` maps back. */
function integerCodec(
  format: UnsignedFormat,
  descending: boolean,
  toUnsigned: (value: FieldValue | undefined) => number | bigint,
  fromUnsigned: (u: number | bigint) => FieldValue,
  field: string,
  ordered = true,
): FieldCodec {
  return {
    descending,
    ordered,
    prefixable: false,
    write(w, value) {
      format.write(w, toUnsigned(value));
    },
    writePrefix() {
      throw new Error("integer fields take no prefix");
    },
    read(key, pos) {
      return { value: fromUnsigned(format.read(key, pos, field)), end: pos + format.length };
    },
  };
}

/** A validator for integers in [min, max]: returns the value as a number when `big` is false, else as a bigint. */
function integerIn(
  field: string,
  min: bigint,
  max: bigint,
  big: boolean,
  what: string,
): (value: FieldValue | undefined) => number | bigint {
  // Number bounds, so the hot path never compares a number with a bigint.
  const minNumber = Number(min);
  const maxNumber = Number(max);
  return (value) => {
    if (
      typeof value === "number" &&
      Number.isSafeInteger(value) &&
      value >= minNumber &&
      value <= maxNumber
    ) {
      return big ? BigInt(value) : value;
    }
    if (typeof value === "bigint" && value >= min && value <= max) return big ? value : Number(value);
    const integer = typeof value === "bigint" || Number.isInteger(value);
    throw new FieldValueError(field, `${describe(value)} is not ${what}; allowed: integers ${min}..${max}`, {
      problem: integer ? "out-of-range" : "wrong-type",
      value,
    });
  };
}

function uintCodec(field: string, repr: Representation): FieldCodec {
  const format = unsignedFormat(repr, false);
  return integerCodec(
    format,
    false,
    integerIn(field, 0n, format.max, format.big, "an unsigned integer"),
    (u) => u,
    field,
  );
}

/**
 * A uint stored reversed: its fixed-width decimal digits last digit first (text), or its bits in
 * reverse order (binary). Consecutive ids differ in their last digit or bit, which the reversal puts
 * first, so a global sequence's writes spread evenly over the key space; the mapping is its own
 * inverse, so a point read by id is still one key.
 */
function reversedUintCodec(field: string, repr: Representation): FieldCodec {
  const format = unsignedFormat(repr, false);
  const valid = integerIn(field, 0n, format.max, format.big, "an unsigned integer");
  const reverse =
    "digits" in repr
      ? (u: bigint) => BigInt([...u.toString().padStart(repr.digits, "0")].reverse().join(""))
      : (u: bigint) => reverseBits(u, 8 * repr.bytes);
  // Travels, and decodes, as a uint of the same width does: a bigint only above 2^53 − 1.
  const same = (u: bigint) => (format.big ? u : Number(u));
  return integerCodec(
    format,
    false,
    (value) => same(reverse(BigInt(valid(value)))),
    (u) => same(reverse(BigInt(u))),
    field,
    false,
  );
}

/** The low `bits` bits of `u` in reverse order. */
export function reverseBits(u: bigint, bits: number): bigint {
  let out = 0n;
  for (let i = 0; i < bits; i++) {
    out = (out << 1n) | (u & 1n);
    u >>= 1n;
  }
  return out;
}

const INT64_OFFSET = 2n ** 63n;

/** Signed 64-bit: u = v + 2^63 (flips the sign bit), written as 8 bytes or 20 digits; decodes as bigint. */
function int64Codec(ctx: CodecContext): FieldCodec {
  const signed = integerIn(ctx.field, -INT64_OFFSET, INT64_OFFSET - 1n, true, "a signed 64-bit integer");
  const format = unsignedFormat(ctx.layout === "text" ? { digits: 20 } : { bytes: 8 }, false);
  return integerCodec(
    format,
    false,
    (v) => (signed(v) as bigint) + INT64_OFFSET,
    (u) => {
      const value = (u as bigint) - INT64_OFFSET;
      if (value >= INT64_OFFSET)
        throw new KeyDecodeError(`field "${ctx.field}": int64 out of range`, { problem: "bad-field" });
      return value;
    },
    ctx.field,
  );
}

/** Text-layout digits per unit: enough until the year 2286. */
export const TIMESTAMP_DIGITS: Record<TimeUnit, number> = { s: 10, ms: 13, us: 16 };

/**
 * Timestamps: non-negative integers in `unit` since the Unix epoch. s and ms travel as numbers,
 * us as bigint (µs exceed 2^53 in text layout's range). A Date is floored to the unit.
 */
function timestampCodec(unit: TimeUnit, reverse: boolean, ctx: CodecContext): FieldCodec {
  const repr: Representation = ctx.layout === "text" ? { digits: TIMESTAMP_DIGITS[unit] } : { bytes: 8 };
  const big = unit === "us";
  const format = unsignedFormat(repr, reverse, big);
  const max = big ? format.max : format.max < MAX_SAFE ? format.max : MAX_SAFE;
  const inRange = integerIn(ctx.field, 0n, max, big, `a timestamp in ${unit} since the epoch (or a Date)`);
  return integerCodec(
    format,
    reverse,
    (value) => {
      if (value instanceof Date) {
        const ms = value.getTime();
        if (Number.isNaN(ms))
          throw new FieldValueError(ctx.field, "Invalid Date", { problem: "wrong-type", value });
        value = unit === "s" ? Math.floor(ms / 1000) : unit === "ms" ? ms : BigInt(ms) * 1000n;
      }
      return inRange(value);
    },
    (u) => {
      if (!big && (u as number) > Number.MAX_SAFE_INTEGER) {
        throw new KeyDecodeError(`field "${ctx.field}": timestamp beyond 2^53 − 1 ${unit}`, {
          problem: "bad-field",
        });
      }
      return big ? BigInt(u) : u;
    },
    ctx.field,
  );
}

/** Enums store the value's index in `values`: order is declaration order. */
function enumCodec(values: readonly string[], ctx: CodecContext): FieldCodec {
  const indexOf = new Map(values.map((value, index) => [value, index]));
  const last = values.length - 1;
  const repr: Representation =
    ctx.layout === "text" ? { digits: String(last).length } : { bytes: last < 256 ? 1 : 2 };
  const format = unsignedFormat(repr, false);
  const shown =
    values.length > 20 ? `${values.slice(0, 20).join(", ")}, … (${values.length} values)` : values.join(", ");
  return integerCodec(
    format,
    false,
    (value) => {
      const index = typeof value === "string" ? indexOf.get(value) : undefined;
      if (index === undefined)
        throw new FieldValueError(ctx.field, `${describe(value)} is not one of: ${shown}`, {
          problem: "not-allowed",
          value,
          allowed: values,
        });
      return index;
    },
    (u) => {
      const value = values[u as number];
      if (value === undefined)
        throw new KeyDecodeError(`field "${ctx.field}": enum index ${u} out of range`, {
          problem: "bad-field",
        });
      return value;
    },
    ctx.field,
  );
}

/** A value as shown in error messages. */
export function describe(value: unknown): string {
  if (value === undefined) return "missing value";
  if (typeof value === "bigint") return `${value}n`;
  if (value instanceof Date)
    return `Date(${Number.isNaN(value.getTime()) ? "invalid" : value.toISOString()})`;
  if (typeof value === "string") return JSON.stringify(value.length > 80 ? `${value.slice(0, 80)}…` : value);
  if (typeof value === "number") return String(value);
  return JSON.stringify(value) ?? String(value);
}
