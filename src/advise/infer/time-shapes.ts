/**
 * How a column of sampled key components reads as a time: Unix epoch digits (s, ms, µs; reversed),
 * Java's Long.MAX_VALUE − ms, compact date digits (YYYYMMDD[HHMM[SS]]), ISO-8601 text, a time of
 * day after a date, or 8 big-endian bytes of a binary key. Pure.
 */
import type { CodecSpec, TimeUnit } from "../../keys/types.js";

export type TimeShapeKind = "epoch" | "java-reverse" | "date-digits" | "iso" | "time-of-day" | "binary";

export interface TimeShape {
  shape: TimeShapeKind;
  /** Unit of the model's timestamp field (the finest the values show). */
  unit: TimeUnit;
  /** Stored so the newest sorts first (9-complement, or Java's Long.MAX_VALUE − t). */
  reverse: boolean;
  /** Smallest step the values can take, seconds (86400 for a date, 0.001 for ms). */
  granularityS: number;
  /** The codec that reads the sampled text as it is, when keyspread's timestamp codec does not. */
  realCodec?: CodecSpec;
}

const YEAR_2000_MS = 946_684_800_000;
const YEAR_2100_MS = 4_102_444_800_000;
const EPOCH_UNITS: readonly { digits: number; unit: TimeUnit; perMs: number; granularityS: number }[] = [
  { digits: 10, unit: "s", perMs: 1e-3, granularityS: 1 },
  { digits: 13, unit: "ms", perMs: 1, granularityS: 1e-3 },
  { digits: 16, unit: "us", perMs: 1e3, granularityS: 1e-6 },
];
const JAVA_LONG_MAX = 9_223_372_036_854_775_807n;
const TWO_63 = 2n ** 63n;

export const inTimeRange = (ms: number) => ms >= YEAR_2000_MS && ms <= YEAR_2100_MS;

function validDate(digits: string): boolean {
  const year = Number(digits.slice(0, 4));
  const month = digits.length >= 6 ? Number(digits.slice(4, 6)) : 1;
  const day = digits.length >= 8 ? Number(digits.slice(6, 8)) : 1;
  const clock = digits.slice(8);
  return (
    year >= 2000 && year <= 2100 && month >= 1 && month <= 12 && day >= 1 && day <= 31 && validClock(clock)
  );
}

/** `HH`, `HHMM` or `HHMMSS` digits (or empty). */
function validClock(digits: string): boolean {
  const hour = digits.length >= 2 ? Number(digits.slice(0, 2)) : 0;
  const minute = digits.length >= 4 ? Number(digits.slice(2, 4)) : 0;
  const second = digits.length >= 6 ? Number(digits.slice(4, 6)) : 0;
  return hour < 24 && minute < 60 && second < 60;
}

/** Compact date digits by length: what the last digits count. */
const DATE_DIGITS: Readonly<Record<number, number>> = {
  4: 365 * 86400,
  6: 28 * 86400,
  8: 86400,
  12: 60,
  14: 1,
};

const ISO = /^\d{4}-\d{2}-\d{2}(?:[T ](\d{2}):(\d{2})(?::(\d{2})(\.\d{1,9})?)?)?(?:Z|[+-]\d{2}:?\d{2})?$/;

function isoGranularity(value: string): number | undefined {
  const match = ISO.exec(value);
  if (!match || !inTimeRange(Date.parse(value.replace(" ", "T")))) return undefined;
  const [, hour, , second, fraction] = match;
  if (hour === undefined) return 86400;
  if (second === undefined) return 60;
  return fraction === undefined ? 1 : 10 ** -Math.min(6, fraction.length - 1);
}

const unitFor = (granularityS: number): TimeUnit =>
  granularityS >= 1 ? "s" : granularityS >= 1e-3 ? "ms" : "us";

/** A time the real key holds as text (date digits, ISO, a time of day): keyspread reads it back as a raw string. */
const textTime = (shape: TimeShapeKind, granularityS: number): TimeShape => ({
  shape,
  unit: unitFor(granularityS),
  reverse: false,
  granularityS,
  realCodec: { type: "string", raw: true },
});

function epochShape(values: readonly string[]): TimeShape | undefined {
  const length = values[0]!.length;
  const numbers = values.map((value) => BigInt(value));
  for (const { digits, unit, perMs, granularityS } of EPOCH_UNITS) {
    if (length !== digits) continue;
    const complement = 10n ** BigInt(digits) - 1n;
    if (numbers.every((n) => inTimeRange(Number(n) / perMs)))
      return { shape: "epoch", unit, reverse: false, granularityS };
    if (numbers.every((n) => inTimeRange(Number(complement - n) / perMs)))
      return { shape: "epoch", unit, reverse: true, granularityS };
  }
  if (length === 19 && numbers.every((n) => inTimeRange(Number(JAVA_LONG_MAX - n))))
    return {
      shape: "java-reverse",
      unit: "ms",
      reverse: true,
      granularityS: 1e-3,
      realCodec: { type: "uint", width: 19 },
    };
  return undefined;
}

/** How a column of values reads as a time, if every value does. */
export function timeShape(values: readonly string[]): TimeShape | undefined {
  if (values.length === 0) return undefined;
  const first = values[0]!;
  if (values.every((value) => /^\d+$/.test(value) && value.length === first.length)) {
    const epoch = epochShape(values);
    if (epoch) return epoch;
    const granularityS = DATE_DIGITS[first.length];
    return granularityS !== undefined && values.every(validDate)
      ? textTime("date-digits", granularityS)
      : undefined;
  }
  const granularities = values.map(isoGranularity);
  if (granularities.every((g) => g !== undefined))
    return textTime("iso", Math.min(...(granularities as number[])));
  return undefined;
}

/** `HHMM` or `HHMMSS` digits, as after a date component (`patient12345_20240315_080000`). */
export function timeOfDayShape(values: readonly string[]): TimeShape | undefined {
  const length = values[0]?.length;
  if (length !== 4 && length !== 6) return undefined;
  if (!values.every((value) => value.length === length && /^\d+$/.test(value) && validClock(value)))
    return undefined;
  return textTime("time-of-day", length === 4 ? 60 : 1);
}

/** 8 bytes (a binary key's component, as Latin-1) read as a big-endian epoch, plain or sign-flipped (Phoenix's BIGINT). */
export function binaryTimeShape(values: readonly string[]): TimeShape | undefined {
  if (values.length === 0 || !values.every((value) => value.length === 8)) return undefined;
  const numbers = values.map((value) => Buffer.from(value, "latin1").readBigUInt64BE(0));
  for (const flipped of [false, true]) {
    const signed = numbers.map((n) => (flipped ? n - TWO_63 : n));
    for (const { unit, perMs, granularityS } of EPOCH_UNITS) {
      if (!signed.every((n) => inTimeRange(Number(n) / perMs))) continue;
      return {
        shape: "binary",
        unit,
        reverse: false,
        granularityS,
        ...(flipped ? { realCodec: { type: "int64" } } : {}),
      };
    }
  }
  return undefined;
}
