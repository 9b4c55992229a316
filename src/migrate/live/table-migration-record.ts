/**
 * A live migration's record held in the table the replicas write (`--migration bigtable:…`), for
 * replicas on several machines, which share no file. The record is one row in keyspread's
 * reserved range (never reached by a data read): a `record` cell (the same JSON as the file) and a
 * `version` cell, a counter every change bumps. A change is a read-modify-write whose write is a
 * conditional mutation on the version read (Bigtable's CheckAndMutateRow): two writers never both
 * win, the loser reads again and retries, so a concurrent `advance` and a job's progress report
 * never overwrite each other.
 *
 * Each replica reports what it applied in its own row (`keyspread:migration-replica:<id>`), a plain
 * write of its own status that no other process writes: N replicas never contend on the record.
 */
import type { Store } from "../../store/store.js";
import { RESERVED_PREFIX } from "../../table/schema-guard.js";
import {
  type MigrationRecord,
  parseMigrationRecord,
  parseServiceStatus,
  type ServiceStatus,
} from "./migration-record.js";

const RECORD_ROW = Buffer.concat([RESERVED_PREFIX, Buffer.from("keyspread:migration")]);
const REPORT_PREFIX = Buffer.concat([RESERVED_PREFIX, Buffer.from("keyspread:migration-replica:")]);
const RECORD = "record";
const VERSION = "version";
const REPORT = "applied";
const ATTEMPTS = 20;

/** A replica's report: the phase it applied, as `ServiceStatus`, under its replica id. */
export interface ReplicaReport extends ServiceStatus {
  replica: string;
}

/** The record in `store`, or undefined when none was begun there. */
export async function readTableRecord(store: Store): Promise<MigrationRecord | undefined> {
  return (await readWithVersion(store)).record;
}

async function readWithVersion(
  store: Store,
): Promise<{ record: MigrationRecord | undefined; version: Buffer | null }> {
  const row = await store.get(RECORD_ROW);
  const cell = row?.cells.get(RECORD);
  const version = row?.cells.get(VERSION) ?? null;
  if (cell === undefined) return { record: undefined, version };
  return { record: parseMigrationRecord(JSON.parse(cell.toString()), `in ${store.name}`), version };
}

/**
 * Lets `change` turn the record into the next one (the same object, unchanged, writes nothing) and
 * writes it if no other writer changed it since it was read; otherwise reads again and retries.
 * Returns a record whenever `change` returns one (written, or equal to the one read).
 */
export async function updateTableRecord(
  store: Store,
  change: (record: MigrationRecord | undefined) => MigrationRecord,
): Promise<MigrationRecord>;
export async function updateTableRecord(
  store: Store,
  change: (record: MigrationRecord | undefined) => MigrationRecord | undefined,
): Promise<MigrationRecord | undefined>;
export async function updateTableRecord(
  store: Store,
  change: (record: MigrationRecord | undefined) => MigrationRecord | undefined,
): Promise<MigrationRecord | undefined> {
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    const { record: before, version } = await readWithVersion(store);
    const after = change(before === undefined ? undefined : structuredClone(before));
    if (after === undefined || JSON.stringify(after) === JSON.stringify(before)) return before;
    const checked = parseMigrationRecord(after, `in ${store.name}`);
    const next = Buffer.from(String(Number(version?.toString() ?? "0") + 1));
    const cells = new Map([
      [RECORD, Buffer.from(JSON.stringify(checked))],
      [VERSION, next],
    ]);
    const written = await store
      .checkAndMutate({ type: "put", key: RECORD_ROW, cells }, { qualifier: VERSION, equals: version })
      // The answer was lost (a conditional mutation is not retried): the version says whether it was applied.
      .catch(async () => (await store.get(RECORD_ROW))?.cells.get(VERSION)?.equals(next) ?? false);
    if (written) return checked;
  }
  throw new Error(`migration in ${store.name}: the record kept changing under this update; try again`);
}

/** Writes this replica's report (only this replica writes its row). */
export async function writeReplicaReport(store: Store, report: ReplicaReport): Promise<void> {
  const key = Buffer.concat([REPORT_PREFIX, Buffer.from(report.replica)]);
  const result = await store.write([
    { type: "put", key, cells: new Map([[REPORT, Buffer.from(JSON.stringify(report))]]) },
  ]);
  const failed = result.failed[0];
  if (failed)
    throw new Error(`replica ${report.replica}'s migration report was not written: ${failed.reason}`);
}

/** Every replica's report, by replica id (stopped replicas' too: the registry says which are live). */
export async function readReplicaReports(store: Store): Promise<Map<string, ReplicaReport>> {
  const end = Buffer.from(REPORT_PREFIX);
  end[end.length - 1] = end[end.length - 1]! + 1;
  const reports = new Map<string, ReplicaReport>();
  for await (const row of store.read([{ start: REPORT_PREFIX, end }])) {
    const cell = row.cells.get(REPORT);
    if (cell === undefined) continue;
    const replica = row.key.subarray(REPORT_PREFIX.length).toString();
    const { replica: _, ...status } = JSON.parse(cell.toString()) as ReplicaReport;
    reports.set(replica, { replica, ...parseServiceStatus(status, `replica ${replica}'s report`) });
  }
  return reports;
}
