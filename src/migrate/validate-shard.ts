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
import type { MigrationDifference } from "./validate.js";

export interface ValidateMigrationShardOptions {
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

export interface MigrationShardValidationReport {
  shard: Shard;
  /** Rows read in the shard's range on each side, and those the side's schema could not decode. */
  source: { rows: number; undecodable: number };
  target: { rows: number; undecodable: number };
  /** How many differences there are; `differences` lists the first MAX_LISTED. */
  differenceCount: number;
  differences: MigrationDifference[];
}

const PAGE = 1000;
const MAX_LISTED = 1000;

export async function validateMigrationShard(
  options: ValidateMigrationShardOptions,
): Promise<MigrationShardValidationReport> {
  const run: ShardRun = {
    options,
    report: {
      shard: options.shard,
      source: { rows: 0, undecodable: 0 },
      target: { rows: 0, undecodable: 0 },
      differenceCount: 0,
      differences: [],
    },
    checked: 0,
  };
  await Promise.all([checkSide(run, "source"), checkSide(run, "target")]);
  return run.report;
}

/** What both sides' passes share: the options, the report they fill, the rows checked so far. */
interface ShardRun {
  options: ValidateMigrationShardOptions;
  report: MigrationShardValidationReport;
  checked: number;
}

type SourceOrTarget = "source" | "target";

/** A row of `side` decoded, with its key under the other side's schema. */
interface Wanted {
  row: StoreRow;
  values: Record<string, FieldValue>;
  otherKey: Buffer;
}

/** Each of one side's rows of the shard, looked up on the other side under the other schema. */
async function checkSide(run: ShardRun, side: SourceOrTarget): Promise<void> {
  const { options } = run;
  const { source, sourceSchema, target, targetSchema } = options;
  const [store, schema, other, otherSchema, range] =
    side === "source"
      ? [source, sourceSchema, target, targetSchema, options.sourceRange]
      : [target, targetSchema, source, sourceSchema, options.targetRange];
  for await (const page of dataPages(store, PAGE, range)) {
    const wanted = keysOnOtherSide(run.report, side, page, schema, otherSchema);
    const found = await readKeys(
      other,
      wanted.map((w) => w.otherKey),
    );
    compareFound(run.report, side, wanted, found);
    run.checked += page.length;
    options.onProgress?.(run.checked);
  }
}

/** The page's rows with their keys on the other side; a row that does not decode, or has no key there, is a difference. */
function keysOnOtherSide(
  report: MigrationShardValidationReport,
  side: SourceOrTarget,
  page: StoreRow[],
  schema: KeySchema,
  otherSchema: KeySchema,
): Wanted[] {
  const otherSide = otherSideOf(side);
  const wanted: Wanted[] = [];
  for (const row of page) {
    report[side].rows++;
    let values: Record<string, FieldValue>;
    try {
      values = schema.decode(row.key).values;
    } catch (error) {
      report[side].undecodable++;
      differ(report, {
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
      differ(report, {
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
  return wanted;
}

/** A wanted row the other side lacks is missing there; from the source side, one whose cells differ is a row difference. */
function compareFound(
  report: MigrationShardValidationReport,
  side: SourceOrTarget,
  wanted: Wanted[],
  found: Map<string, StoreRow>,
): void {
  for (const { row, values, otherKey } of wanted) {
    const match = found.get(otherKey.toString("latin1"));
    const text = canonicalRow(values, row.cells);
    if (match === undefined) {
      differ(report, { kind: "missing", side: otherSideOf(side), key: row.key.toString("hex"), row: text });
      continue;
    }
    // Contents are compared once, from the source side.
    if (side === "source") {
      const targetText = canonicalRow(values, match.cells);
      if (targetText !== text) {
        differ(report, {
          kind: "row",
          sourceKey: row.key.toString("hex"),
          targetKey: otherKey.toString("hex"),
          source: text,
          target: targetText,
        });
      }
    }
  }
}

function otherSideOf(side: SourceOrTarget): SourceOrTarget {
  return side === "source" ? "target" : "source";
}

/** Counts a difference; lists it while fewer than MAX_LISTED are. */
function differ(report: MigrationShardValidationReport, difference: MigrationDifference): void {
  report.differenceCount++;
  if (report.differences.length < MAX_LISTED) report.differences.push(difference);
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
