/**
 * Field values to and from JSON (the CLI's line format): integers beyond 2^53 − 1 travel as
 * decimal strings, timestamps also as ISO-8601 strings.
 */
import { describe } from "./codec.js";
import { FieldValueError, QueryError, unknownFieldError } from "./errors.js";
import type { CodecSpec, FieldValue, FieldValues, KeySchema, Query } from "./types.js";

/** Converts a parsed JSON object to field values; rejects fields the schema does not have. */
export function valuesFromJson(schema: KeySchema, input: unknown): FieldValues {
  if (typeof input !== "object" || input === null || Array.isArray(input)) {
    throw new TypeError(`expected a JSON object with the fields ${fieldNames(schema)}`);
  }
  const values: FieldValues = {};
  const codecs = new Map(schema.fields.map((f) => [f.name, f.codec]));
  for (const [name, value] of Object.entries(input)) {
    const codec = codecs.get(name);
    if (!codec)
      throw unknownFieldError(
        name,
        schema.fields.map((f) => f.name),
      );
    values[name] = fromJson(codec, value, name);
  }
  return values;
}

function fromJson(codec: CodecSpec, value: unknown, field: string): FieldValue {
  const integerLike =
    codec.type === "int64" ||
    codec.type === "uint" ||
    codec.type === "reversed-uint" ||
    codec.type === "timestamp";
  if (integerLike && typeof value === "string") {
    if (/^-?\d+$/.test(value)) return BigInt(value);
    const ms = Date.parse(value);
    if (codec.type === "timestamp" && !Number.isNaN(ms)) return new Date(ms);
    throw new FieldValueError(
      field,
      `${describe(value)} is not an integer${codec.type === "timestamp" ? " or ISO-8601 time" : ""}`,
      { problem: "wrong-type", value },
    );
  }
  if (integerLike && typeof value === "number" && Number.isInteger(value) && !Number.isSafeInteger(value)) {
    throw new FieldValueError(
      field,
      `${value} is beyond 2^53 − 1 and lost precision as a JSON number; write it as a string`,
      { problem: "out-of-range", value },
    );
  }
  if (typeof value === "string" || typeof value === "number") return value;
  throw new FieldValueError(field, `${describe(value)} is not allowed; expected a string or number`, {
    problem: "wrong-type",
    value,
  });
}

/** Decoded values as JSON-safe values: bigints become decimal strings. */
export function valuesToJson(values: Record<string, FieldValue>): Record<string, string | number> {
  const out: Record<string, string | number> = {};
  for (const [name, value] of Object.entries(values)) {
    out[name] =
      typeof value === "bigint" ? value.toString() : value instanceof Date ? value.toISOString() : value;
  }
  return out;
}

function fieldNames(schema: KeySchema): string {
  return schema.fields.map((f) => f.name).join(", ");
}

/** A query as JSON: `eq` values, range bounds and prefix converted like field values. */
export function queryFromJson(schema: KeySchema, input: unknown): Query {
  if (typeof input !== "object" || input === null || Array.isArray(input)) {
    throw new QueryError('the query must be a JSON object like {"eq": {…}, "range": {…}, "limit": 100}', {
      problem: "not-an-object",
    });
  }
  const { eq, range, prefix, limit, ...rest } = input as Record<string, unknown>;
  const unknown = Object.keys(rest)[0];
  if (unknown !== undefined)
    throw new QueryError(`unknown query key "${unknown}"; allowed: eq, range, prefix, limit`, {
      problem: "unknown-key",
      field: unknown,
    });
  const query: Query = {};
  if (eq !== undefined) query.eq = valuesFromJson(schema, eq);
  if (range !== undefined) {
    const { field, ...bounds } = range as { field: string } & Record<string, unknown>;
    const codec = schema.fields.find((f) => f.name === field)?.codec;
    query.range = { field };
    for (const [op, value] of Object.entries(bounds)) {
      if (!["gte", "gt", "lte", "lt"].includes(op))
        throw new QueryError(`range: unknown bound "${op}"; allowed: gte, gt, lte, lt`, {
          problem: "unknown-key",
          field,
        });
      (query.range as Record<string, FieldValue>)[op] = codec
        ? fromJson(codec, value, field)
        : (value as FieldValue);
    }
  }
  if (prefix !== undefined) query.prefix = prefix as Query["prefix"] & object;
  if (limit !== undefined) query.limit = limit as number;
  return query;
}
