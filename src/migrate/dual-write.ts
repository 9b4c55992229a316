/**
 * The app's write path during a migration window (the fleet incident: "dual-write from the ingest service
 * to old and new tables"): every write goes to both tables at once, and a failure on either side
 * comes back naming the side and the rows, so the app can retry or alert instead of drifting.
 */
import type { FieldValues } from "../keys/types.js";
import type { CellsInput, PutRow, SaltedTable } from "../table/salted-table.js";

export type MigrationSide = "old" | "new";

export interface DualWriteFailure {
  side: MigrationSide;
  /** Position of the row in the batch. */
  index: number;
  values: FieldValues;
  reason: string;
}

export interface DualWriteResult {
  /** Empty when both tables took every row. */
  failed: DualWriteFailure[];
}

export class DualWriteError extends Error {
  override readonly name = "DualWriteError";
  /** The tables that failed a row, in the order of their first failure. */
  readonly sides: MigrationSide[];

  constructor(readonly failed: DualWriteFailure[]) {
    const sides = [...new Set(failed.map((f) => f.side))];
    super(
      `dual write failed on the ${sides.join(" and ")} table${sides.length > 1 ? "s" : ""} for ${failed.length} row(s); first: ` +
        `${failed[0]?.side} row ${failed[0]?.index}: ${failed[0]?.reason}`,
    );
    this.sides = sides;
  }
}

export class DualWriteTable {
  constructor(
    readonly oldTable: SaltedTable,
    readonly newTable: SaltedTable,
  ) {}

  /**
   * Writes the batch to both tables concurrently (the named cells, or with `replace` exactly
   * these); a side that throws reports every row as failed.
   */
  async putMany(rows: readonly PutRow[], options: { replace?: boolean } = {}): Promise<DualWriteResult> {
    const sides = await Promise.all([
      this.sidePut("old", this.oldTable, rows, options),
      this.sidePut("new", this.newTable, rows, options),
    ]);
    return { failed: sides.flat() };
  }

  /** Writes one row to both tables; throws DualWriteError naming the side(s) that failed. */
  async put(values: FieldValues, cells: CellsInput, options: { replace?: boolean } = {}): Promise<void> {
    const { failed } = await this.putMany([{ values, cells }], options);
    if (failed.length > 0) throw new DualWriteError(failed);
  }

  /** Deletes the row (or its `cells`) from both tables; throws DualWriteError naming the side(s) that failed. */
  async delete(values: FieldValues, options: { cells?: readonly string[] } = {}): Promise<void> {
    const results = await Promise.allSettled([
      this.oldTable.delete(values, options),
      this.newTable.delete(values, options),
    ]);
    const failed = results.flatMap((result, i): DualWriteFailure[] =>
      result.status === "fulfilled"
        ? []
        : [{ side: i === 0 ? "old" : "new", index: 0, values, reason: reasonOf(result.reason) }],
    );
    if (failed.length > 0) throw new DualWriteError(failed);
  }

  private async sidePut(
    side: MigrationSide,
    table: SaltedTable,
    rows: readonly PutRow[],
    options: { replace?: boolean },
  ): Promise<DualWriteFailure[]> {
    try {
      const { failed } = await table.putMany(rows, options);
      return failed.map((f) => ({ side, index: f.index, values: f.values, reason: f.reason }));
    } catch (error) {
      const reason = reasonOf(error);
      return rows.map((row, index) => ({ side, index, values: row.values, reason }));
    }
  }
}

function reasonOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
