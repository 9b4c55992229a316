/**
 * Where a new table whose key leads with a reversed uint is split when created: its ids spread
 * evenly over the key space by construction, so even cuts by the leading digits (or byte) hold
 * equal shares of the writes — what a salted table's bucket starts are to a salt.
 */
import type { KeySchema } from "./types.js";

/**
 * Split keys at the first two reversed digits (`order#01` … `order#99`) or the first reversed
 * byte; empty unless the key is unsalted and its first field, after literals only, is a reversed uint.
 */
export function reversedLeadSplits(schema: KeySchema): Buffer[] {
  const first = schema.fields[0];
  if (schema.bucketCount > 1 || first?.codec.type !== "reversed-uint") return [];
  const prefix = schema.plan({}).ranges[0]!.start;
  if (schema.spec.layout === "binary")
    return Array.from({ length: 255 }, (_, byte) => Buffer.concat([prefix, Buffer.of(byte + 1)]));
  const digits = Math.min(2, first.codec.width ?? 20);
  return Array.from({ length: 10 ** digits - 1 }, (_, cut) =>
    Buffer.concat([prefix, Buffer.from(String(cut + 1).padStart(digits, "0"))]),
  );
}
