import type { KeySchema } from "../../keys/types.js";

/**
 * A live migration of the service's table may change only the salt: the service reads a device's
 * rows as one newest-first range of one bucket, and every row spans one aggregation interval.
 */
export function checkServiceRekeying(oldSchema: KeySchema, newSchema: KeySchema): void {
  const shape = (schema: KeySchema) => JSON.stringify({ ...schema.spec, name: "", salt: undefined });
  if (shape(newSchema) !== shape(oldSchema)) {
    throw new Error(
      `the new table's schema ${newSchema.fingerprint} must be the service's row key (${oldSchema.fingerprint}) with another salt, same interval: keyspread serve schema --buckets N --interval DURATION`,
    );
  }
  const salted = newSchema.spec.salt?.fields ?? [];
  if (!salted.every((field) => field === "tenant" || field === "deviceId")) {
    throw new Error(
      `the new table salts over ${salted.join(", ")}; a device's rows must stay in one bucket (salt over tenant and deviceId)`,
    );
  }
}
