/**
 * The table a load test writes: created the way the design says — pre-split at its salt buckets
 * ("salt-buckets"), at N split points where its load will be equal (a number, cut as the lab cuts
 * its new table, on the keys this run writes), or one tablet (0) — or, when it exists, checked
 * before anything is written. Checks that apply to an existing table:
 * - a row outside keyspread's reserved range without the load-test marker cell was written by other
 *   code: refused, unless `reuseTable` repeats the table's name (the operator says the rows may share it);
 * - a load test run already recorded with other parameters: refused by the run row (run-record.ts);
 * - a schema row of another schema: refused by `SaltedTable.open`.
 * The check reads the first `CHECKED_ROWS` rows of the key space and every salt bucket's first rows.
 */
import type { KeySchema } from "../keys/types.js";
import { resolveModel } from "../sim/cluster/model.js";
import { FastLoad } from "../sim/load/fast-load.js";
import { loadQuantiles } from "../sim/results/simulate.js";
import { SALT_BUCKET_SPLITS } from "../sim/scenario/scenario.js";
import { CompiledRead } from "../sim/workload/reads.js";
import { CompiledGroup } from "../sim/workload/workload.js";
import { BigtableStore, type BigtableStoreOptions } from "../store/bigtable/bigtable.js";
import type { Store } from "../store/store.js";
import { MAX_INITIAL_SPLITS } from "../store/validate.js";
import { RESERVED_PREFIX } from "../table/schema-guard.js";
import { bucketSplits } from "../table/splits.js";
import { LOADTEST_CELL, markTableCreated } from "./run-record.js";
import type { ScaledScenario } from "./scaled-scenario.js";

export class TableHoldsRowsError extends Error {
  override readonly name = "TableHoldsRowsError";
  constructor(
    readonly table: string,
    readonly key: Buffer,
  ) {
    super(
      `${table} holds rows not written by a load test (first: ${key.toString("hex")}); a load test writes only to its own table or one it wrote before. To write beside those rows anyway, pass --reuse-table with the table's name`,
    );
  }
}

/** `--reuse-table` must repeat the table's own name (a guard against reusing the wrong table). */
export class ReuseTableMismatchError extends Error {
  override readonly name = "ReuseTableMismatchError";
  readonly field = "--reuse-table";
  constructor(
    readonly value: string,
    readonly table: string,
  ) {
    super(`--reuse-table is "${value}" but the table is "${table}"; repeat the table's name`);
  }
}

const CHECKED_ROWS = 1000;

/** The first data row lacking the load-test marker, if any. */
export async function foreignRow(store: Store, schema: KeySchema): Promise<Buffer | undefined> {
  const starts = [Buffer.alloc(0), ...bucketSplits(schema)];
  // The start of the key space and each bucket's first rows: a shared table's rows show up in one of them.
  const perRange = Math.max(1, Math.ceil(CHECKED_ROWS / starts.length));
  for (const [index, start] of starts.entries()) {
    const end = starts[index + 1] ?? RESERVED_PREFIX;
    for await (const row of store.read([{ start, end }], { limit: perRange })) {
      if (!row.cells.has(LOADTEST_CELL)) return row.key;
    }
  }
  return undefined;
}

/** Refuses a table holding others' rows unless `reuseTable` names it. */
export async function checkTestTable(
  store: Store,
  schema: KeySchema,
  tableName: string,
  reuseTable: string | undefined,
): Promise<void> {
  if (reuseTable !== undefined && reuseTable !== tableName)
    throw new ReuseTableMismatchError(reuseTable, tableName);
  if (reuseTable === tableName) return;
  const foreign = await foreignRow(store, schema);
  if (foreign !== undefined) throw new TableHoldsRowsError(store.name, foreign);
}

/**
 * Split keys for a new test table, as the design's `splits` (else the scenario's `tablets.splits`)
 * says. A number of split points cuts the load of the groups and reads this run drives (on its own
 * clock, `startMs`: time fields in a key land where the run writes) into equal parts, as the lab
 * pre-splits its new table; more than Bigtable takes at creation become fewer, equal, cuts.
 */
export function testTableSplits(scaled: ScaledScenario, schema: KeySchema, startMs: number): Buffer[] {
  const { scenario, design } = scaled;
  const splits = design.splits ?? scenario.tablets.splits;
  if (splits === SALT_BUCKET_SPLITS) return bucketSplits(schema);
  if (splits === 0) return [];
  const { groups: groupSpecs, reads: readSpecs, rowBytes } = scenario.workload;
  const groups = groupSpecs.map((spec) => new CompiledGroup(schema, spec, design, rowBytes, startMs));
  // Reads on Data Boost never reach the cluster: the lab leaves them out of its cuts too.
  const reads = readSpecs.flatMap((spec) => {
    const group = groups.find((candidate) => candidate.name === spec.group);
    return group === undefined || spec.dataBoost === true ? [] : [new CompiledRead(spec, group)];
  });
  const load = new FastLoad(groups, reads, resolveModel(scenario, design, "default").cost);
  return loadQuantiles(load, Math.min(splits, MAX_INITIAL_SPLITS) + 1);
}

/** gRPC ALREADY_EXISTS: the table is there (another task created it, or an earlier run). */
const ALREADY_EXISTS = 6;

/** Creates the table as the design says (recording that the load test did), or opens and checks the one there. */
export async function openTestTable(
  options: BigtableStoreOptions & { tableId: string },
  schema: KeySchema,
  scaled: ScaledScenario,
  reuseTable: string | undefined,
): Promise<BigtableStore> {
  const splits = testTableSplits(scaled, schema, Date.now());
  try {
    const store = await BigtableStore.createTable({ ...options, splits });
    await markTableCreated(store);
    return store;
  } catch (error) {
    if ((error as { cause?: { code?: unknown } }).cause?.code !== ALREADY_EXISTS) throw error;
  }
  const store = await BigtableStore.open(options);
  try {
    await checkTestTable(store, schema, options.tableId, reuseTable);
  } catch (error) {
    await store.close();
    throw error;
  }
  return store;
}
