/** Durations as people write them in scenarios and on the command line: `90s`, `30m`, `3h`, `1h30m`, `2d`. */

const UNIT_SECONDS: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86400 };
const DURATION = /^(?:\d+(?:\.\d+)?[smhd])+$/;

/** Seconds in `text` (a bare number is seconds). Throws naming `field` when the text is not a duration. */
export function parseDuration(text: string | number, field = "duration"): number {
  if (typeof text === "number") {
    if (Number.isFinite(text) && text > 0) return text;
    throw new Error(`${field}: ${text} is not a positive number of seconds`);
  }
  const trimmed = text.trim();
  if (/^\d+(?:\.\d+)?$/.test(trimmed)) return parseDuration(Number(trimmed), field);
  if (!DURATION.test(trimmed)) {
    throw new Error(`${field}: "${text}" is not a duration; use e.g. 90s, 30m, 3h, 1h30m or 2d`);
  }
  let seconds = 0;
  for (const [, amount, unit] of trimmed.matchAll(/(\d+(?:\.\d+)?)([smhd])/g)) {
    seconds += Number(amount) * UNIT_SECONDS[unit!]!;
  }
  if (seconds <= 0) throw new Error(`${field}: "${text}" must be longer than zero`);
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
