/**
 * A live migration's state record: a small JSON file (`keyspread serve --migration FILE`, by
 * default `<dir>/<table>.migration.json`) that `keyspread migrate begin|advance|backfill|validate`
 * and the running service share. It names the two tables and their schemas, the phase and its
 * revision, what the service has applied, and the backfill and validation the service runs.
 *
 * Two processes never corrupt it: every change is a read-modify-write under the file's lock
 * (`file-lock.ts`), written whole to a temporary file, fsynced and renamed over the old one, so a
 * reader (or a crash) sees the old record or the new one. `advance` is a check-and-set on the phase
 * under that lock; the service writes only its own sections (`service`, and the progress and
 * results of the jobs it runs).
 */
import { hostname } from "node:os";
import * as v from "valibot";
import { isAlive, withFileLock } from "../../io/file-lock.js";
import { writeFileAtomically } from "../../io/write-file-atomically.js";
import { compileSchema } from "../../keys/schema.js";
import type { KeySchema, SchemaSpec } from "../../keys/types.js";
import { readJsonFile } from "../json-file.js";
import { MIGRATION_PHASES } from "./migration-phases.js";

const PHASE = v.picklist(MIGRATION_PHASES);
const COUNT = v.pipe(v.number(), v.integer(), v.minValue(0));
const SEGMENT = v.pipe(v.number(), v.integer(), v.minValue(0));

const TABLE = v.strictObject({
  /** Store address (`embedded:/abs/dir/table`, `bigtable:…`). */
  address: v.string(),
  spec: v.record(v.string(), v.unknown()),
  fingerprint: v.string(),
});

const SERVICE = v.strictObject({
  pid: v.number(),
  host: v.string(),
  wal: v.string(),
  /** The revision the service follows; `error` says why it could not apply it (yet). */
  revision: COUNT,
  phase: PHASE,
  applied: v.boolean(),
  error: v.optional(v.string()),
  /** Every log segment from this id on has been written to both tables (while they are both written). */
  dualWriteFrom: v.optional(SEGMENT),
  /** Set once writes left the old table (writes-on-new): from this segment on, the old table lacks rows. */
  oldMissesFrom: v.optional(SEGMENT),
  /** Every log segment below this id is written to every table of its phase (a cut for validate). */
  completeBelow: SEGMENT,
  updatedAt: v.string(),
});

const JOB_STATE = v.picklist(["requested", "running", "complete", "failed"]);

const BACKFILL = v.strictObject({
  /** The dual-write period it belongs to: after a rollback to single and back, a new backfill is needed. */
  dualWriteFrom: SEGMENT,
  /** Copies the new table into the old one: the rows an old table lacks after writes had left it. */
  reverse: v.optional(v.boolean()),
  state: JOB_STATE,
  checkpoint: v.string(),
  batchSize: v.pipe(v.number(), v.integer(), v.minValue(1)),
  rowsPerSecond: v.optional(v.pipe(v.number(), v.minValue(0.001))),
  rowsRead: COUNT,
  rowsWritten: COUNT,
  /** Process starts that ran it: more than one means it was resumed after a kill. */
  runs: COUNT,
  error: v.optional(v.string()),
  requestedAt: v.string(),
  updatedAt: v.string(),
});

const VALIDATION = v.strictObject({
  id: v.string(),
  state: JOB_STATE,
  sample: COUNT,
  rowsPerEntity: v.pipe(v.number(), v.integer(), v.minValue(1)),
  ranges: v.pipe(v.number(), v.integer(), v.minValue(1)),
  /** Rows of log segments at or above this id were left out (written while it ran). */
  cut: v.optional(SEGMENT),
  dualWriteFrom: v.optional(SEGMENT),
  differences: v.optional(COUNT),
  /** One JSON line per difference (the first 1,000), then the summary. */
  report: v.optional(v.string()),
  summary: v.optional(v.record(v.string(), v.unknown())),
  error: v.optional(v.string()),
  requestedAt: v.string(),
  updatedAt: v.string(),
});

const RECORD = v.strictObject({
  format: v.literal("keyspread-migration/1"),
  old: TABLE,
  new: TABLE,
  phase: PHASE,
  /** Bumped by every advance: the service reports which revision it applied. */
  revision: COUNT,
  history: v.array(
    v.strictObject({
      revision: COUNT,
      from: PHASE,
      to: PHASE,
      at: v.string(),
      forced: v.optional(v.boolean()),
    }),
  ),
  service: v.optional(SERVICE),
  backfill: v.optional(BACKFILL),
  validation: v.optional(VALIDATION),
});

export type MigrationRecord = v.InferOutput<typeof RECORD>;

/** Checks a record's shape (what a table cell or a file holds); `where` names it in the error. */
export function parseMigrationRecord(json: unknown, where: string): MigrationRecord {
  const parsed = v.safeParse(RECORD, json);
  if (!parsed.success) {
    throw new Error(`migration ${where} is not a keyspread migration record: ${v.summarize(parsed.issues)}`);
  }
  return parsed.output;
}

/** One replica's report of the phase it applied (a table-held record: one row per replica). */
export function parseServiceStatus(json: unknown, where: string): ServiceStatus {
  const parsed = v.safeParse(SERVICE, json);
  if (!parsed.success)
    throw new Error(`${where} is not a replica's migration report: ${v.summarize(parsed.issues)}`);
  return parsed.output;
}
export type MigrationTable = v.InferOutput<typeof TABLE>;
export type ServiceStatus = v.InferOutput<typeof SERVICE>;

/** The recorded service is known to have stopped: its process is gone from this host (another host's cannot be checked). */
export const serviceGone = (service: ServiceStatus): boolean =>
  service.host === hostname() && !isAlive(service.pid);
export type BackfillJob = v.InferOutput<typeof BACKFILL>;
export type ValidationJob = v.InferOutput<typeof VALIDATION>;

export function tableRef(address: string, schema: KeySchema): MigrationTable {
  return { address, spec: { ...schema.spec }, fingerprint: schema.fingerprint };
}

/** The table's schema, checked against its recorded fingerprint. */
export function schemaOf(table: MigrationTable, file: string): KeySchema {
  const schema = compileSchema(table.spec as unknown as SchemaSpec);
  if (schema.fingerprint !== table.fingerprint) {
    throw new Error(
      `migration ${file}: the schema recorded for ${table.address} has fingerprint ${schema.fingerprint}, not the recorded ${table.fingerprint} (edited by hand?)`,
    );
  }
  return schema;
}

/** The record in `file`, or undefined when there is none; a damaged one is an error naming the file. */
export async function readMigrationRecord(file: string): Promise<MigrationRecord | undefined> {
  const json = await readJsonFile<unknown>(file, "migration");
  if (json === undefined) return undefined;
  return parseMigrationRecord(json, file);
}

/**
 * Reads the record under the file's lock, lets `change` return the next one (or the same object,
 * unchanged, to write nothing), and writes it atomically and durably. Returns what the file holds:
 * a record whenever `change` returns one (it is either written or equal to the one read).
 */
export function updateMigrationRecord(
  file: string,
  change: (record: MigrationRecord | undefined) => MigrationRecord,
): Promise<MigrationRecord>;
export function updateMigrationRecord(
  file: string,
  change: (record: MigrationRecord | undefined) => MigrationRecord | undefined,
): Promise<MigrationRecord | undefined>;
export function updateMigrationRecord(
  file: string,
  change: (record: MigrationRecord | undefined) => MigrationRecord | undefined,
): Promise<MigrationRecord | undefined> {
  return withFileLock(file, "migration", async () => {
    const before = await readMigrationRecord(file);
    const after = change(before === undefined ? undefined : structuredClone(before));
    if (after === undefined || JSON.stringify(after) === JSON.stringify(before)) return before;
    const checked = v.parse(RECORD, after);
    await writeFileAtomically(file, `${JSON.stringify(checked, null, 2)}\n`, { durable: true });
    return checked;
  });
}
