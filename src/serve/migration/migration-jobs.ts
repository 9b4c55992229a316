/**
 * The work `keyspread migrate backfill|validate --migration FILE` asks the running service to do:
 * the service holds both tables (an embedded table opens in one process only), knows exactly which
 * rows are still being written, and resumes a backfill after a crash from its checkpoint.
 */
import { writeFileAtomically } from "../../io/write-file-atomically.js";
import { type BackfillProgress, backfillTable } from "../../migrate/backfill.js";
import type { BackfillJob, ValidationJob } from "../../migrate/live/migration-record.js";
import { validateMigration } from "../../migrate/validate.js";
import type { SaltedTable } from "../../table/salted-table.js";

/** Differences listed in the report file; the summary counts them all. */
const MAX_REPORTED_DIFFERENCES = 1000;

export interface JobTables {
  old: SaltedTable;
  new: SaltedTable;
}

/**
 * Copies the old table into the new one (`reverse`: the new one into the old) from the job's
 * checkpoint on; calls `onProgress` after each batch.
 */
export function runBackfill(
  tables: JobTables,
  job: BackfillJob,
  signal: AbortSignal,
  onProgress: (progress: BackfillProgress) => void,
) {
  const [source, target] = job.reverse ? [tables.new, tables.old] : [tables.old, tables.new];
  return backfillTable({
    source: source.store,
    sourceSchema: source.schema,
    target: target.store,
    targetSchema: target.schema,
    checkpointFile: job.checkpoint,
    batchSize: job.batchSize,
    ...(job.rowsPerSecond === undefined ? {} : { rowsPerSecond: job.rowsPerSecond }),
    estimateSamples: 0,
    durable: true,
    signal,
    onProgress,
  });
}

export interface LiveValidation {
  differences: number;
  summary: Record<string, unknown>;
}

/**
 * The fleet incident's validation during dual-write: row count and checksum per range of intervals, and the
 * latest rows of sampled devices, compared between the tables over the rows of log segments below
 * `cut` — every one of them written to both tables (or, older than the dual-write start, copied by
 * the backfill). Rows of later segments are being written while this runs: left out on both sides.
 * Writes the differences (the first 1,000) and the summary line to `job.report`.
 */
export async function runValidation(
  tables: JobTables,
  job: ValidationJob & { report: string },
  cut: number | ReadonlyMap<string, number>,
  signal: AbortSignal,
): Promise<LiveValidation> {
  // Per writer (replicas following a table-held record): each replica's own cut; a writer that
  // never reported wrote only before the migration began (its rows are the backfill's).
  const below =
    typeof cut === "number"
      ? (values: Record<string, unknown>) => (values.segment as number) < cut
      : (values: Record<string, unknown>) =>
          (values.segment as number) < (cut.get(values.writer as string) ?? Number.POSITIVE_INFINITY);
  const report = await validateMigration({
    source: tables.old.store,
    sourceSchema: tables.old.schema,
    target: tables.new.store,
    targetSchema: tables.new.schema,
    ranges: job.ranges,
    rangeField: "interval",
    sampleEntities: job.sample,
    rowsPerEntity: job.rowsPerEntity,
    entityFields: ["tenant", "deviceId"],
    include: below,
    signal,
  });
  const { differences, ranges, ...rest } = report;
  const summary = {
    differences: differences.length,
    cut: typeof cut === "number" ? cut : Object.fromEntries(cut),
    ...rest,
    ranges: ranges.length,
  };
  const lines = differences.slice(0, MAX_REPORTED_DIFFERENCES).map((difference) => toJson(difference));
  await writeFileAtomically(job.report, `${[...lines, toJson(summary)].join("\n")}\n`, { durable: true });
  return { differences: differences.length, summary: JSON.parse(toJson(summary)) };
}

function toJson(value: unknown): string {
  return JSON.stringify(value, (_key, v) => (typeof v === "bigint" ? v.toString() : v));
}
