/**
 * Write shards in the simulator: a sharded row's writes go round-robin over its shards (as
 * SaltedTable's default chooser does), so one hot logical row is `count` physical rows that can
 * split onto different tablets, where one row never can.
 */

import type { FieldValues, KeySchema, QueryPlan } from "../../keys/types.js";
import { keyForWrite, shardSuffixLength } from "../../keys/write-shards.js";

/** The key write number `serial` of the row `values` goes to. */
export function writeKey(schema: KeySchema, values: FieldValues, serial: number): Buffer {
  return keyForWrite(schema, values, (count) => serial % count);
}

/** Where a point read of the row `values` starts: its key, or its first shard's range. */
export function pointReadStart(schema: KeySchema, values: FieldValues): Buffer {
  return schema.shardsOf(values) === 1 ? schema.encode(values) : schema.plan({ eq: values }).ranges[0]!.start;
}

/**
 * The keys an entity's writes spread over: each range start its queries plan, and for a sharded
 * entity each start followed by every shard's suffix (exactly the shard keys when the entity binds
 * every field), so the entity's load lies on `count` adjacent keys a split can part.
 */
export function shardFootprint(
  schema: KeySchema,
  starts: Buffer[],
  writeValues: () => FieldValues,
): Buffer[] {
  if (schema.writeShardCount === 1) return starts;
  const write = writeValues();
  const shards = schema.shardsOf(write);
  if (shards === 1) return starts;
  const length = shardSuffixLength(schema.spec.layout, shards);
  const suffixes = Array.from({ length: shards }, (_, shard) =>
    schema.encode(write, shard).subarray(-length),
  );
  return starts.flatMap((start) => suffixes.map((suffix) => Buffer.concat([start, suffix])));
}

/** Physical rows a read of one logical row costs under these plans: the shards it spans. */
export function rowsPerLogicalRow(plans: readonly QueryPlan[]): number {
  return Math.max(1, ...plans.map((plan) => plan.shardsPerRow ?? 1));
}
