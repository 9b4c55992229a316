/**
 * A value outside what its option allows, as data: the option (`field`), its `value` and what is
 * `allowed`, in the one wording keyspread uses for it, `field is value; allowed: …`. Each part of
 * keyspread names its own subclass, so a caller can tell whose option it was.
 */
export class AllowedValueError extends RangeError {
  constructor(
    readonly field: string,
    readonly value: unknown,
    readonly allowed: string,
    /** The sentence, where the option's own wording reads better than `field is value; allowed: …`. */
    message = `${field} is ${String(value)}; allowed: ${allowed}`,
  ) {
    super(message);
  }
}
