/**
 * Generated ids a key sample may hold, and whether their text sorts by time: UUIDs (RFC 9562) by
 * version, ULIDs (Crockford base32, 48-bit ms time first), and Snowflake-style 64-bit decimals
 * (ms time in the top bits). Pure.
 */
import { inTimeRange } from "./time-shapes.js";

export type IdFormat = "uuid-v1" | "uuid-v4" | "uuid-v6" | "uuid-v7" | "uuid" | "ulid";

export interface IdShape {
  format: IdFormat;
  /** The text sorts by creation time (so new ids land next to each other), at least within a sweep. */
  timeOrdered: boolean;
  /** How the ids order, in words. */
  note: string;
  /** UUID v1: seconds new ids take to sweep the whole key space once (time_low wraps). */
  sweepS?: number;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-([0-9a-f])[0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const ULID = /^[0-7][0-9A-HJKMNP-TV-Z]{25}$/i;
const CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";
/** 100-ns intervals from the Gregorian epoch (1582-10-15) to the Unix epoch. */
const GREGORIAN_OFFSET = 122_192_928_000_000_000n;
/** time_low is 32 bits of 100-ns ticks: it wraps every 2^32 × 100 ns ≈ 7.2 minutes. */
const V1_SWEEP_S = Math.round(2 ** 32 / 1e7);

function uuidTimeMs(value: string, version: number): number {
  const hex = value.replace(/-/g, "");
  if (version === 7) return Number.parseInt(hex.slice(0, 12), 16);
  // v1: time_low (8), time_mid (4), version + time_hi (4); v6: time_high (8), time_mid (4), version + time_low (4).
  const [a, b, c] = [hex.slice(0, 8), hex.slice(8, 12), hex.slice(13, 16)];
  const ticks = BigInt(`0x${version === 1 ? c + b + a : a + b + c}`);
  return Number((ticks - GREGORIAN_OFFSET) / 10_000n);
}

function ulidTimeMs(value: string): number {
  let ms = 0;
  for (const char of value.slice(0, 10).toUpperCase()) ms = ms * 32 + CROCKFORD.indexOf(char);
  return ms;
}

/** The id format every value has, if they share one. */
export function idShape(values: readonly string[]): IdShape | undefined {
  if (values.length === 0) return undefined;
  const versions = new Set(values.map((value) => UUID.exec(value)?.[1]));
  if (versions.size === 1 && !versions.has(undefined)) {
    const version = Number.parseInt([...versions][0]!, 16);
    const timed =
      (version === 1 || version === 6 || version === 7) &&
      values.every((value) => inTimeRange(uuidTimeMs(value, version)));
    if (timed && version === 1)
      return {
        format: "uuid-v1",
        timeOrdered: true,
        sweepS: V1_SWEEP_S,
        note: `UUID v1 puts time_low first: new ids sweep the key space every ${Math.round((V1_SWEEP_S / 60) * 10) / 10} minutes, one narrow range at a time (a moving hotspot)`,
      };
    if (timed)
      return {
        format: version === 6 ? "uuid-v6" : "uuid-v7",
        timeOrdered: true,
        note: `UUID v${version} leads with its creation time: new ids sort after the last ones`,
      };
    return {
      format: version === 4 ? "uuid-v4" : "uuid",
      timeOrdered: false,
      note: version === 4 ? "UUID v4: random" : `UUID v${version}: hash-like`,
    };
  }
  if (values.every((value) => ULID.test(value) && inTimeRange(ulidTimeMs(value))))
    return {
      format: "ulid",
      timeOrdered: true,
      note: "ULID: 48-bit ms time first, then randomness: new ids sort after the last ones",
    };
  return undefined;
}
