/** Errors raised by key schemas; each names what was wrong and what is allowed. */

/**
 * A schema spec that cannot be compiled; `path` is like `segments[2].codec.unit`. For an unknown
 * key, `allowed` lists the keys allowed there.
 */
export class SchemaError extends Error {
  override readonly name = "SchemaError";
  constructor(
    readonly path: string,
    problem: string,
    readonly allowed?: readonly string[],
  ) {
    super(path ? `${path}: ${problem}` : problem);
  }
}

/** A field value the schema cannot encode (missing, wrong type, out of range, separator in raw text). */
export class FieldValueError extends Error {
  override readonly name = "FieldValueError";
  constructor(
    readonly field: string,
    problem: string,
  ) {
    super(`field "${field}": ${problem}`);
  }
}

/** A value for a field the schema does not have: the library and the CLI name it alike. */
export function unknownFieldError(field: string, fields: readonly string[]): FieldValueError {
  return new FieldValueError(field, `unknown field; the schema has ${fields.join(", ")}`);
}

/** A key that is not a key of this schema (wrong schema, truncated or corrupted). */
export class KeyDecodeError extends Error {
  override readonly name = "KeyDecodeError";
}

/** A key longer than Bigtable's 4 KiB row-key limit. */
export class KeyTooLongError extends Error {
  override readonly name = "KeyTooLongError";
  constructor(
    readonly schemaName: string,
    readonly length: number,
  ) {
    super(
      `key of schema "${schemaName}" is ${length} bytes; Bigtable row keys are at most ${BIGTABLE_MAX_KEY_BYTES} bytes`,
    );
  }
}

/**
 * A query the planner cannot turn into ranges (non-prefix binding, a range over the wrong field,
 * …): `field` is the field the query named there, `expected` the field the key needed.
 */
export class QueryError extends Error {
  override readonly name: string = "QueryError";
  readonly field: string | undefined;
  readonly expected: string | undefined;
  constructor(message: string, where: { field?: string | undefined; expected?: string | undefined } = {}) {
    super(message);
    this.field = where.field;
    this.expected = where.expected;
  }
}

export const BIGTABLE_MAX_KEY_BYTES = 4096;
