/** Durations as people write them in scenarios and on the command line: `90s`, `30m`, `3h`, `1h30m`, `2d`. */

const UNIT_SECONDS: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86400 };
const DURATION = /^(?:\d+(?:\.\d+)?[smhd])+$/;

/** A value that is not a duration: the `field` it was given for, the `value`, and what is `allowed`. */
export class DurationError extends Error {
  override readonly name = "DurationError";
  constructor(
    readonly field: string,
    readonly value: string | number,
    readonly allowed: string,
    message: string,
  ) {
    super(message);
  }
}

const POSITIVE_SECONDS = "a positive number of seconds";
const WRITTEN = "a duration such as 90s, 30m, 3h, 1h30m or 2d";

/** Seconds in `text` (a bare number is seconds). Throws naming `field` when the text is not a duration. */
export function parseDuration(text: string | number, field = "duration"): number {
  if (typeof text === "number") {
    if (Number.isFinite(text) && text > 0) return text;
    throw new DurationError(field, text, POSITIVE_SECONDS, `${field}: ${text} is not ${POSITIVE_SECONDS}`);
  }
  const trimmed = text.trim();
  if (/^\d+(?:\.\d+)?$/.test(trimmed)) return parseDuration(Number(trimmed), field);
  if (!DURATION.test(trimmed)) {
    throw new DurationError(
      field,
      text,
      WRITTEN,
      `${field}: "${text}" is not a duration; use e.g. 90s, 30m, 3h, 1h30m or 2d`,
    );
  }
  let seconds = 0;
  // Both groups always take part in a match.
  for (const match of trimmed.matchAll(/(\d+(?:\.\d+)?)([smhd])/g)) {
    seconds += Number(match[1]) * UNIT_SECONDS[match[2]!]!;
  }
  if (seconds <= 0)
    throw new DurationError(field, text, WRITTEN, `${field}: "${text}" must be longer than zero`);
  return seconds;
}

/** `5400` → `1h30m`: the inverse of parseDuration for whole seconds. */
export function formatDuration(seconds: number): string {
  let rest = Math.round(seconds);
  let text = "";
  for (const [unit, size] of [
    ["d", 86400],
    ["h", 3600],
    ["m", 60],
    ["s", 1],
  ] as const) {
    const amount = Math.floor(rest / size);
    if (amount > 0) text += `${amount}${unit}`;
    rest -= amount * size;
  }
  return text || "0s";
}
