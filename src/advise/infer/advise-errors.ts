/**
 * What the advisor refuses, as named errors with the facts in fields: an option out of range
 * (`option`, the `value` given, what is `allowed`), and a key sample it cannot read (`line`, 1-based,
 * when one line is at fault, and the `character` when one is not printable).
 */

/** An advisor option (`nodes`, `growth`, `baseline`, `buckets`, `--rates`) whose value is not allowed. */
export class AdviseOptionError extends Error {
  override readonly name = "AdviseOptionError";
  constructor(
    readonly option: string,
    readonly value: string,
    readonly allowed: string,
    message: string,
  ) {
    super(message);
  }
}

/**
 * A sample of row keys the advisor cannot model: `unreadable` at `line` (at `character`, 1-based,
 * when one character is not printable text), `empty`, or all one key (`identical`).
 */
export class KeySampleError extends Error {
  override readonly name = "KeySampleError";
  constructor(
    readonly problem: "unreadable" | "empty" | "identical",
    message: string,
    readonly line?: number,
    readonly character?: number,
  ) {
    super(message);
  }
}
