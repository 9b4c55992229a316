/**
 * A table's side of write shards: which shard a write goes to, which physical rows a delete
 * names, and how a read turns a logical row's adjacent shard rows back into one row.
 */
import { randomInt } from "node:crypto";
import type { FieldValues, KeySchema } from "../keys/types.js";
import { keyForWrite, physicalKeys, shardSuffixLength } from "../keys/write-shards.js";
import { describeKey, type TableRow } from "./row-decoder.js";

/** Picks the shard, 0..count − 1, one write of a sharded row goes to. */
export type ShardChooser = (count: number) => number;

/**
 * Merges one column's values from a logical row's shards (in shard order) into the value the
 * read returns.
 */
export type ShardCellMerge = (column: string, values: readonly Buffer[]) => Buffer;

/**
 * Round-robin from a random start: one writer spreads its writes exactly evenly (every shard
 * takes one write in `count`, where random picks leave a binomial excess on some shard), and
 * writers that each write rarely do not all start on shard 0.
 */
export function roundRobinShards(): ShardChooser {
  let next = -1;
  return (count) => {
    next = next < 0 ? randomInt(count) : (next + 1) % count;
    return next % count;
  };
}

/** Cells a logical row's shards disagree on, with no merge given for them. */
export class ShardMergeError extends Error {
  override readonly name = "ShardMergeError";
  constructor(
    readonly table: string,
    readonly key: Buffer,
    readonly column: string,
    readonly shards: number,
  ) {
    super(
      `${table}: row ${describeKey(key)} holds ${shards} different values of column "${column}" across its write shards; ` +
        `open the table with mergeShards (e.g. sumInt64Cells for counters) to say how they combine`,
    );
  }
}

/**
 * The default merge: a column held by one shard, or by several with the same bytes, is that value.
 * Different values are refused rather than one picked: the store keeps no write order across rows.
 */
export function sameCells(table: string): (key: Buffer) => ShardCellMerge {
  return (key) => (column, values) => {
    const first = values[0]!;
    if (values.some((value) => !value.equals(first)))
      throw new ShardMergeError(table, key, column, values.length);
    return first;
  };
}

/** A shard's cell that is not an 8-byte big-endian integer: `column` names it, `bytes` is its length. */
export class Int64CellError extends TypeError {
  override readonly name = "Int64CellError";
  constructor(
    readonly column: string,
    readonly bytes: number,
  ) {
    super(`column "${column}": ${bytes}-byte value is not an 8-byte big-endian integer`);
  }
}

/**
 * Sums 8-byte big-endian signed integers: the cell format of Bigtable's increment
 * (ReadModifyWriteRule.increment_amount), so each shard of a counter holds its part of the count.
 */
export const sumInt64Cells: ShardCellMerge = (column, values) => {
  let sum = 0n;
  for (const value of values) {
    if (value.length !== 8) throw new Int64CellError(column, value.length);
    sum += value.readBigInt64BE();
  }
  const out = Buffer.alloc(8);
  out.writeBigInt64BE(BigInt.asIntN(64, sum));
  return out;
};

/** Which physical rows a write or delete of a logical row names. */
export class ShardedKeys {
  constructor(
    private readonly schema: KeySchema,
    private readonly choose: ShardChooser,
  ) {}

  /** The key one write of `values` goes to: a chosen shard's for a sharded row. */
  forWrite(values: FieldValues): Buffer {
    return keyForWrite(this.schema, values, this.choose);
  }

  /** Every physical row of the logical row `values`. */
  all(values: FieldValues): Buffer[] {
    return physicalKeys(this.schema, values);
  }
}

/**
 * Folds a logical row's shard rows, adjacent in a read (the suffix is the key's end and the salt
 * does not read it), into one row: its key without the suffix, cells merged column by column.
 * Rows of unsharded entities pass through as they are.
 */
export class ShardRowMerger<D extends FieldValues = FieldValues> {
  private pending: { row: TableRow<D>; logicalKey: Buffer; shards: TableRow<D>[] } | undefined;
  private readonly suffixLength: number;

  constructor(
    private readonly schema: KeySchema,
    private readonly merge: (key: Buffer) => ShardCellMerge,
  ) {
    this.suffixLength = shardSuffixLength(schema.spec.layout, schema.writeShardCount);
  }

  /** Takes the next row of the read (decoded, so a sharded entity's row has its suffix); returns the logical row it completes, if any. */
  push(row: TableRow<D>): TableRow<D> | undefined {
    const sharded = this.schema.shardsOf(row.values) > 1;
    const logicalKey = sharded ? row.key.subarray(0, row.key.length - this.suffixLength) : row.key;
    if (sharded && this.pending?.logicalKey.equals(logicalKey)) {
      this.pending.shards.push(row);
      return undefined;
    }
    const done = this.flush();
    this.pending = { row, logicalKey, shards: [row] };
    return done;
  }

  /** The last logical row, once the read has no more rows. */
  flush(): TableRow<D> | undefined {
    const pending = this.pending;
    this.pending = undefined;
    if (pending === undefined) return undefined;
    if (pending.logicalKey === pending.row.key) return pending.row;
    const { row, logicalKey, shards } = pending;
    return { ...row, key: Buffer.from(logicalKey), cells: mergeCells(shards, this.merge(logicalKey)) };
  }
}

function mergeCells(shards: readonly TableRow[], merge: ShardCellMerge): Map<string, Buffer> {
  const byColumn = new Map<string, Buffer[]>();
  for (const { cells } of shards) {
    for (const [column, value] of cells) {
      const values = byColumn.get(column);
      if (values) values.push(value);
      else byColumn.set(column, [value]);
    }
  }
  const merged = new Map<string, Buffer>();
  for (const [column, values] of [...byColumn].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    merged.set(column, values.length === 1 ? values[0]! : merge(column, values));
  }
  return merged;
}
