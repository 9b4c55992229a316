/** Errors raised by key schemas; each names what was wrong and what is allowed. */

/** What was wrong with a schema spec, for callers that tell the cases apart. */
export type SchemaProblem =
  | "syntax"
  | "invalid"
  | "unknown-key"
  | "no-field"
  | "reserved-field"
  | "duplicate-field"
  | "duplicate-value"
  | "unknown-field"
  | "separator"
  | "separator-in-literal"
  | "too-long"
  | "out-of-range"
  | "salt-input"
  | "salt-fields"
  | "hash-ends-in-literal"
  | "write-shards";

/**
 * A schema spec that cannot be compiled; `path` is like `segments[2].codec.unit`. For an unknown
 * key, `allowed` lists the keys allowed there; `value` is the offending value where there is one,
 * `at` its character position (in a salt input template).
 */
export class SchemaError extends Error {
  override readonly name = "SchemaError";
  readonly problem: SchemaProblem;
  readonly allowed: readonly string[] | undefined;
  readonly value: string | undefined;
  readonly at: number | undefined;
  constructor(
    readonly path: string,
    message: string,
    detail: { problem: SchemaProblem; allowed?: readonly string[]; value?: string; at?: number },
  ) {
    super(path ? `${path}: ${message}` : message);
    this.problem = detail.problem;
    this.allowed = detail.allowed;
    this.value = detail.value;
    this.at = detail.at;
  }
}

/** What was wrong with a field value. */
export type FieldValueProblem =
  | "unknown-field"
  | "missing"
  | "wrong-type"
  | "out-of-range"
  | "not-allowed"
  | "forbidden-character"
  | "malformed-unicode";

/**
 * A field value the schema cannot encode (missing, wrong type, out of range, separator in raw
 * text): `value` is what was given, `allowed` the values allowed where they are a short list.
 */
export class FieldValueError extends Error {
  override readonly name = "FieldValueError";
  readonly problem: FieldValueProblem;
  readonly value: unknown;
  readonly allowed: readonly string[] | undefined;
  constructor(
    readonly field: string,
    message: string,
    detail: { problem: FieldValueProblem; value?: unknown; allowed?: readonly string[] },
  ) {
    super(`field "${field}": ${message}`);
    this.problem = detail.problem;
    this.value = detail.value;
    this.allowed = detail.allowed;
  }
}

/** A value for a field the schema does not have: the library and the CLI name it alike. */
export function unknownFieldError(field: string, fields: readonly string[]): FieldValueError {
  return new FieldValueError(field, `unknown field; the schema has ${fields.join(", ")}`, {
    problem: "unknown-field",
    allowed: fields,
  });
}

/** Where a key stopped being a key of the schema. */
export type KeyDecodeProblem =
  | "truncated"
  | "unexpected-bytes"
  | "bad-salt"
  | "salt-mismatch"
  | "bad-field"
  | "bad-shard";

/**
 * A key that is not a key of this schema (wrong schema, truncated or corrupted): `at` is the byte
 * where reading failed; for a salt mismatch, `bucket` is the key's salt and `expectedBucket` the
 * bucket its fields hash to.
 */
export class KeyDecodeError extends Error {
  override readonly name = "KeyDecodeError";
  readonly problem: KeyDecodeProblem;
  readonly at: number | undefined;
  readonly bucket: number | undefined;
  readonly expectedBucket: number | undefined;
  constructor(
    message: string,
    detail: { problem: KeyDecodeProblem; at?: number; bucket?: number; expectedBucket?: number },
  ) {
    super(message);
    this.problem = detail.problem;
    this.at = detail.at;
    this.bucket = detail.bucket;
    this.expectedBucket = detail.expectedBucket;
  }
}

/** Key text that does not read as bytes: `text` is what was given (hex with an odd or non-hex digit). */
export class KeyTextError extends Error {
  override readonly name = "KeyTextError";
  constructor(
    readonly text: string,
    message: string,
  ) {
    super(message);
  }
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

/** Why a query cannot be planned. */
export type QueryProblem =
  | "not-an-object"
  | "unknown-key"
  | "unbound-prefix"
  | "not-the-next-field"
  | "range-and-prefix"
  | "prefix-needs-string"
  | "unordered-field"
  | "conflicting-bounds"
  | "bad-limit"
  | "not-newest-first";

/**
 * A query the planner cannot turn into ranges (non-prefix binding, a range over the wrong field,
 * …): `field` is the field the query named there, `expected` the field the key needed.
 */
export class QueryError extends Error {
  override readonly name: string = "QueryError";
  readonly problem: QueryProblem;
  readonly field: string | undefined;
  readonly expected: string | undefined;
  constructor(
    message: string,
    where: { problem: QueryProblem; field?: string | undefined; expected?: string | undefined },
  ) {
    super(message);
    this.problem = where.problem;
    this.field = where.field;
    this.expected = where.expected;
  }
}

export const BIGTABLE_MAX_KEY_BYTES = 4096;
