/**
 * An option of the ingest service (or of its deployment) outside what it allows, as data: the
 * option (`field`), its `value` and what is `allowed`. The message names all three.
 */
export class ServeOptionError extends RangeError {
  override readonly name = "ServeOptionError";

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
