/** What `latest` needs of a query: its bound fields followed by a reverse timestamp. */
import { QueryError } from "../keys/errors.js";
import { checkQueryFields } from "../keys/planner.js";
import type { FieldValue, FieldValues, KeySchema, Query } from "../keys/types.js";

/**
 * A latest-N query the schema cannot serve newest first: `field` is the field right after the
 * bound ones (undefined when every field is bound) and `codec` its codec's type; `expected` is
 * always a reverse timestamp.
 */
export class LatestQueryError extends QueryError {
  override readonly name = "LatestQueryError";
  constructor(
    readonly schemaName: string,
    field: string | undefined,
    readonly codec: string | undefined,
    message: string,
  ) {
    super(message, { problem: "not-newest-first", field, expected: "a reverse timestamp" });
  }
}

/**
 * Refuses a query whose newest-first order is not key order: the field right after the bound
 * ones must be a reverse timestamp, or the limit could not be pushed down.
 */
export function checkLatestQuery<V extends FieldValues>(
  schema: KeySchema<V, Record<string, FieldValue>>,
  query: Omit<Query<V>, "limit">,
): void {
  checkQueryFields(schema, query);
  const eq: { readonly [field: string]: unknown } = query.eq ?? {};
  const bound = schema.fields.findIndex((field) => eq[field.name] === undefined);
  const next = schema.fields[bound];
  if (next === undefined || next.codec.type !== "timestamp" || !next.codec.reverse) {
    throw new LatestQueryError(
      schema.spec.name,
      next?.name,
      next?.codec.type,
      `latest needs a reverse timestamp right after the bound fields; ` +
        `field ${next ? `"${next.name}" is ${describeCodec(next.codec)}` : "after them does not exist"}` +
        ` in schema "${schema.spec.name}"`,
    );
  }
}

function describeCodec(codec: KeySchema["fields"][number]["codec"]): string {
  return codec.type === "timestamp" ? `a ${codec.reverse ? "reverse " : ""}timestamp` : `a ${codec.type}`;
}
