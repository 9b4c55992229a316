/**
 * The table a load test writes: created the way the design says (pre-split at its salt buckets
 * when the design's table is, one tablet otherwise) or, when it exists, checked before anything is
 * written. Checks that apply to an existing table:
 * - a row outside keyspread's reserved range without the load-test marker cell was written by other
 *   code: refused, unless `reuseTable` repeats the table's name (the operator says the rows may share it);
 * - a load test run already recorded with other parameters: refused by the run row (run-record.ts);
 * - a schema row of another schema: refused by `SaltedTable.open`.
 * The check reads the first `CHECKED_ROWS` rows of the key space and every salt bucket's first rows.
 */
import type { KeySchema } from "../keys/types.js";
import type { Store } from "../store/store.js";
import { RESERVED_PREFIX } from "../table/schema-guard.js";
import { bucketSplits } from "../table/splits.js";
import { LOADTEST_CELL } from "./run-record.js";

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
  if (reuseTable !== undefined && reuseTable !== tableName) {
    throw new Error(
      `--reuse-table is "${reuseTable}" but the table is "${tableName}"; repeat the table's name`,
    );
  }
  if (reuseTable === tableName) return;
  const foreign = await foreignRow(store, schema);
  if (foreign !== undefined) throw new TableHoldsRowsError(store.name, foreign);
}

/** Split keys for a new test table: the salt's bucket starts when the design's table is pre-split at them. */
export function testTableSplits(schema: KeySchema, splits: "salt-buckets" | number): Buffer[] {
  return splits === "salt-buckets" ? bucketSplits(schema) : [];
}
