/** The opt-out from `encode`'s unknown-field check, for callers holding wider objects. */
import type { FieldValue, FieldValues, KeySchema } from "./types.js";

/**
 * The members of `row` that are the schema's fields (a row carrying other data, such as a reading
 * with its measurement, becomes field values `encode` accepts). Fields `row` lacks stay missing,
 * so `encode` still names them.
 */
export function pickFields(
  schema: Pick<KeySchema, "fields">,
  row: Readonly<Record<string, unknown>>,
): FieldValues {
  const values: FieldValues = {};
  for (const { name } of schema.fields) {
    if (row[name] !== undefined) values[name] = row[name] as FieldValue;
  }
  return values;
}
