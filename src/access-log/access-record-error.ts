/** A line of an access log that is not a record: the field, the value found and what is allowed. */
export class AccessRecordError extends Error {
  override readonly name = "AccessRecordError";
  constructor(
    /** A record's field (`ts`, `key`, `op`…), or `line` (not a JSON object) or `header` (the CSV header). */
    readonly field: string,
    readonly value: unknown,
    /** What the field allows, as the message says it. */
    readonly allowed: string,
    message: string,
  ) {
    super(message);
  }
}
