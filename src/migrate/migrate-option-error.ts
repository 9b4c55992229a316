/**
 * An option of a migration step outside what it allows, as data: the option (`field`), its
 * `value` and what is `allowed`. The message names all three.
 */
export class MigrateOptionError extends RangeError {
  override readonly name = "MigrateOptionError";

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
