/**
 * Duration flags in milliseconds, written with their unit: `500ms`, `30s`, `15m`, `24h`, `2d`,
 * `1m30s`. A bare number still means the flag's former unit (some flags took seconds, others
 * milliseconds), with a note that it is deprecated.
 */
import { InvalidArgumentError } from "commander";

const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };
const DURATION = /^(?:\d+(?:\.\d+)?(?:ms|s|m|h|d))+$/;

export interface DurationFlag {
  /** The flag, for messages: `--drain-delay`. */
  flag: string;
  /** What a bare number meant before units were required. */
  bareUnit: "ms" | "s";
  /** Smallest value allowed, in ms (default 1). */
  minMs?: number;
  maxMs?: number;
  /** Where the deprecation note goes (default stderr). */
  warn?: (line: string) => void;
}

/** A commander argument parser: the duration in whole milliseconds. */
export function durationMs(spec: DurationFlag): (text: string) => number {
  return (text) => {
    const trimmed = text.trim();
    let ms: number;
    if (/^\d+(?:\.\d+)?$/.test(trimmed)) {
      ms = Number(trimmed) * UNIT_MS[spec.bareUnit]!;
      (spec.warn ?? ((line) => process.stderr.write(`${line}\n`)))(
        `keyspread: ${spec.flag} ${trimmed}: a number without a unit is deprecated; write ${formatMs(ms)}`,
      );
    } else if (DURATION.test(trimmed)) {
      ms = 0;
      // Both groups always take part in a match.
      for (const match of trimmed.matchAll(/(\d+(?:\.\d+)?)(ms|s|m|h|d)/g)) {
        ms += Number(match[1]) * UNIT_MS[match[2]!]!;
      }
    } else {
      throw new InvalidArgumentError(
        `"${text}" is not a duration; write it with its unit: 500ms, 30s, 15m, 24h`,
      );
    }
    const min = spec.minMs ?? 1;
    const max = spec.maxMs ?? Number.MAX_SAFE_INTEGER;
    if (!Number.isInteger(ms) || ms < min || ms > max) {
      throw new InvalidArgumentError(
        `"${text}" is ${ms} ms: expected whole milliseconds from ${formatMs(min)} to ${max === Number.MAX_SAFE_INTEGER ? "any" : formatMs(max)}`,
      );
    }
    return ms;
  };
}

/** `90000` → `1m30s`, `500` → `500ms`, `0` → `0s`: how a duration flag's value is written. */
export function formatMs(ms: number): string {
  let rest = ms;
  let text = "";
  for (const unit of ["d", "h", "m", "s", "ms"] as const) {
    const amount = Math.floor(rest / UNIT_MS[unit]!);
    if (amount > 0) text += `${amount}${unit}`;
    rest -= amount * UNIT_MS[unit]!;
  }
  return text || "0s";
}
