import type { KeySchema } from "../../keys/types.js";
import { LiveMigrationError } from "./live-migration-error.js";

/**
 * A live migration of the service's table may change only the salt: the service reads a device's
 * rows as one newest-first range of one bucket, and every row spans one aggregation interval.
 */
export function checkServiceRekeying(oldSchema: KeySchema, newSchema: KeySchema): void {
  const shape = (schema: KeySchema) => JSON.stringify({ ...schema.spec, name: "", salt: undefined });
  if (shape(newSchema) !== shape(oldSchema)) {
    throw new LiveMigrationError({
      code: "changes-more-than-salt",
      oldFingerprint: oldSchema.fingerprint,
      newFingerprint: newSchema.fingerprint,
    });
  }
  const salted = newSchema.spec.salt?.fields ?? [];
  if (!salted.every((field) => field === "tenant" || field === "deviceId")) {
    throw new LiveMigrationError({ code: "salt-splits-device", salted });
  }
}
