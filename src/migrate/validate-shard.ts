/**
 * Validating one shard of a re-keying, so N processes check a huge table together: every source
 * row of the shard's source range is looked up by its new key in the target and compared (so a
 * difference names the row), and every target row of the shard's target range is looked up by
 * its old key in the source (so a row only the target has is found). Over all N shards each row
 * on either side is checked once.
 */
import { keySuccessor } from "../keys/bytes.js";
import type { FieldValue, KeySchema } from "../keys/types.js";
import type { KeyRange, Store, StoreRow } from "../store/store.js";
import { dataPages } from "./data-rows.js";
import { canonicalRow } from "./row-digest.js";
import type { Shard } from "./shards.js";
import type { Difference } from "./validate.js";

export interface ShardValidateOptions {
  source: Store;
  sourceSchema: KeySchema;
  target: Store;
  targetSchema: KeySchema;
  shard: Shard;
  /** The shard's range of source keys and of target keys (each from its table's shard plan). */
  sourceRange: KeyRange;
  targetRange: KeyRange;
  onProgress?: (rowsChecked: number) => void;
}

export interface ShardValidationReport {
  shard: Shard;
  /** Rows read in the shard's range on each side, and those the side's schema could not decode. */
  source: { rows: number; undecodable: number };
  target: { rows: number; undecodable: number };
  /** How many differences there are; `differences` lists the first MAX_LISTED. */
  differenceCount: number;
  differences: Difference[];
}

const PAGE = 1000;
const MAX_LISTED = 1000;

export async function validateShard(options: ShardValidateOptions): Promise<ShardValidationReport> {
  const { source, sourceSchema, target, targetSchema } = options;
  const report: ShardValidationReport = {
    shard: options.shard,
    source: { rows: 0, undecodable: 0 },
    target: { rows: 0, undecodable: 0 },
    differenceCount: 0,
    differences: [],
  };
  const differ = (difference: Difference) => {
    report.differenceCount++;
    if (report.differences.length < MAX_LISTED) report.differences.push(difference);
  };
  let checked = 0;

  // Each side's rows of the shard, looked up on the other side under the other schema.
  const pass = async (side: "source" | "target") => {
    const [store, schema, other, otherSchema, range] =
      side === "source"
        ? [source, sourceSchema, target, targetSchema, options.sourceRange]
        : [target, targetSchema, source, sourceSchema, options.targetRange];
    const otherSide = side === "source" ? "target" : "source";
    for await (const page of dataPages(store, PAGE, range)) {
      const wanted: { row: StoreRow; values: Record<string, FieldValue>; otherKey: Buffer }[] = [];
      for (const row of page) {
        report[side].rows++;
        let values: Record<string, FieldValue>;
        try {
          values = schema.decode(row.key).values;
        } catch (error) {
          report[side].undecodable++;
          differ({
            kind: "undecodable",
            side,
            key: row.key.toString("hex"),
            reason: (error as Error).message,
          });
          continue;
        }
        let otherKey: Buffer;
        try {
          otherKey = otherSchema.encode(values);
        } catch (error) {
          differ({
            kind: "missing",
            side: otherSide,
            key: row.key.toString("hex"),
            row: canonicalRow(values, row.cells),
            reason: `the ${otherSide} schema cannot key it: ${(error as Error).message}`,
          });
          continue;
        }
        wanted.push({ row, values, otherKey });
      }
      const found = await readKeys(
        other,
        wanted.map((w) => w.otherKey),
      );
      for (const { row, values, otherKey } of wanted) {
        const match = found.get(otherKey.toString("latin1"));
        const text = canonicalRow(values, row.cells);
        if (match === undefined) {
          differ({ kind: "missing", side: otherSide, key: row.key.toString("hex"), row: text });
          continue;
        }
        // Contents are compared once, from the source side.
        if (side === "source") {
          const targetText = canonicalRow(values, match.cells);
          if (targetText !== text) {
            differ({
              kind: "row",
              sourceKey: row.key.toString("hex"),
              targetKey: otherKey.toString("hex"),
              source: text,
              target: targetText,
            });
          }
        }
      }
      checked += page.length;
      options.onProgress?.(checked);
    }
  };
  await Promise.all([pass("source"), pass("target")]);
  return report;
}

/** The rows at exactly these keys (one read of single-key ranges), by key as latin1. */
async function readKeys(store: Store, keys: readonly Buffer[]): Promise<Map<string, StoreRow>> {
  const sorted = [...keys].sort(Buffer.compare).filter((key, i, all) => i === 0 || !key.equals(all[i - 1]!));
  const found = new Map<string, StoreRow>();
  if (sorted.length === 0) return found;
  const ranges = sorted.map((key) => ({ start: key, end: keySuccessor(key) }));
  for await (const row of store.read(ranges)) found.set(row.key.toString("latin1"), row);
  return found;
}
