/**
 * A table option outside what is allowed: `option` names it as the caller wrote it (`pageSize`,
 * `accessLog.sampleRate`), `value` is what was given and `allowed` says what may be given.
 */
export class TableOptionError extends RangeError {
  override readonly name = "TableOptionError";
  constructor(
    readonly option: string,
    readonly value: unknown,
    readonly allowed: string,
  ) {
    super(`${option} is ${String(value)}; allowed: ${allowed}`);
  }
}

const WHOLE_NUMBER = "a whole number ≥ 1";

/** Refuses anything but a whole number ≥ 1 for a count such as `pageSize` or `limit`. */
export function checkCount(option: string, value: number): void {
  if (!(Number.isSafeInteger(value) && value >= 1)) throw new TableOptionError(option, value, WHOLE_NUMBER);
}

/** Refuses anything but a share from 0 to 1 (a sample rate, a tolerated share). */
export function checkShare(option: string, value: number): void {
  if (!(value >= 0 && value <= 1)) throw new TableOptionError(option, value, "a share from 0 to 1");
}
