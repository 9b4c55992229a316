/**
 * Retention for stores without Bigtable's garbage collection (embedded, memory): deletes rows whose
 * interval is older than the max age. Reverse timestamps put a device's oldest rows at the end of
 * its key range, so each device costs one seek to its first expired row plus the expired rows
 * themselves; devices are found by skipping from one device's range to the next, never by reading
 * live rows. On Bigtable the same rule is the column family's max-age GC policy, set when the table
 * is created. During a live migration it sweeps every table the service writes.
 */
import type { SaltedTable } from "../../table/salted-table.js";
import { SCHEMA_ROW_KEY } from "../../table/schema-guard.js";
import { logEvent } from "../observe/service-events.js";

export interface RetentionOptions {
  maxAgeMs: number;
  /** How often to sweep (default: a tenth of the max age, at least every second). */
  sweepEveryMs?: number;
  log: (line: string) => void;
  now?: () => number;
}

const DELETE_BATCH = 1_000;

export class RetentionSweeper {
  private readonly timer: NodeJS.Timeout;
  private running: Promise<number> = Promise.resolve(0);

  private readonly tablesNow: () => readonly SaltedTable[];

  /** `tables`: the table swept, or a function naming the tables at each sweep. */
  constructor(
    tables: SaltedTable | (() => readonly SaltedTable[]),
    private readonly options: RetentionOptions,
  ) {
    this.tablesNow = typeof tables === "function" ? tables : () => [tables];
    if (!(options.maxAgeMs > 0)) throw new RangeError(`retention maxAgeMs ${options.maxAgeMs}: expected > 0`);
    const every = options.sweepEveryMs ?? Math.max(1000, options.maxAgeMs / 10);
    this.timer = setInterval(() => {
      this.running = this.running
        .then(() => this.sweep())
        .catch((error: unknown) => {
          logEvent(options.log, "retention-error", { error: String(error) });
          return 0;
        });
    }, every);
    this.timer.unref();
  }

  /** Deletes every expired row now; returns how many. */
  async sweep(): Promise<number> {
    const cutoff = (this.options.now ?? Date.now)() - this.options.maxAgeMs;
    let deleted = 0;
    for (const table of this.tablesNow()) deleted += await this.sweepTable(table, cutoff);
    if (deleted > 0) logEvent(this.options.log, "retention", { deleted, cutoffMs: cutoff });
    return deleted;
  }

  /** Resolves once the sweep under way (if any) has ended. */
  async idle(): Promise<void> {
    await this.running;
  }

  private async sweepTable(table: SaltedTable, cutoff: number): Promise<number> {
    const { store, schema } = table;
    let deleted = 0;
    let batch: Buffer[] = [];
    const drain = async () => {
      if (batch.length === 0) return;
      const { failed } = await store.write(batch.map((key) => ({ type: "delete" as const, key })));
      if (failed.length > 0)
        throw new Error(`retention: ${failed.length} deletes failed: ${failed[0]!.reason}`);
      deleted += batch.length;
      batch = [];
    };
    for (const bucket of schema.plan({}).ranges) {
      let start = bucket.start;
      for (;;) {
        const first = await firstRow(
          store.read([{ start, end: bucket.end ?? SCHEMA_ROW_KEY }], { limit: 1 }),
        );
        if (first === undefined) break;
        const { tenant, deviceId } = schema.decode(first).values;
        const device = { tenant: tenant as string, deviceId: deviceId as string };
        const expired = table.scan({
          eq: device,
          range: { field: "interval", lt: Math.max(0, cutoff) },
        });
        for await (const row of expired) {
          batch.push(row.key);
          if (batch.length >= DELETE_BATCH) await drain();
        }
        const next = schema.plan({ eq: device }).ranges[0]!.end;
        if (next === null) break;
        start = next;
      }
    }
    await drain();
    return deleted;
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.running;
  }
}

async function firstRow(rows: AsyncIterable<{ key: Buffer }>): Promise<Buffer | undefined> {
  for await (const row of rows) return row.key;
  return undefined;
}
