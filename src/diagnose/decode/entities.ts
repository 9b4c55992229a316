/**
 * The entities a key holds: the writers whose rows a key groups together, named by the key's
 * fields before its time (a device under `tenant#deviceId#reverseTs` is the pair tenant, device).
 * Counting entities, not row keys, tells one hot device from a wide range: with a time in the key
 * every row is a distinct key, while the entity stays one. Pure.
 */
import type { KeySchema } from "../../keys/types.js";
import { valueText } from "./decoded-boundary.js";

export interface EntityFields {
  fields: string[];
  /**
   * The entity's fields lead the key (after the salt, which hashes some of them): every key
   * between two keys of one entity is that entity's. False for a time-first key.
   */
  leading: boolean;
}

/**
 * The fields that name an entity: those before the first time field. A key that leads with its
 * time (a time-first key) names its writer after it, so there the fields after the time until
 * the next time field; a key with no time field names its entity with every field.
 */
export function entityFields(schema: KeySchema): EntityFields {
  const fields = schema.fields;
  const firstTime = fields.findIndex((field) => field.codec.type === "timestamp");
  // A salt over a field outside the entity scatters one entity's keys over buckets.
  const leads = (names: string[]) => ({
    fields: names,
    leading: schema.saltFields.every((field) => names.includes(field)),
  });
  if (firstTime < 0) return leads(fields.map((field) => field.name));
  if (firstTime > 0) return leads(fields.slice(0, firstTime).map((field) => field.name));
  const after = fields.slice(1);
  const nextTime = after.findIndex((field) => field.codec.type === "timestamp");
  return {
    fields: (nextTime < 0 ? after : after.slice(0, nextTime)).map((field) => field.name),
    leading: false,
  };
}

/** One entity's identity as text (its fields' values joined), for counting distinct entities. */
export function entityOf(values: Record<string, unknown>, fields: readonly string[]): string {
  return fields.map((field) => valueText(values[field])).join("\u0000");
}
