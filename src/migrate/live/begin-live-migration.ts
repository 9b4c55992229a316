/**
 * Begins a live re-keying of the table a running `keyspread serve` writes: records the old and
 * new tables (phase single) in the migration record, a file or the table the replicas write. The
 * new table must exist already, holding the new schema; beginning the same migration again
 * returns its record, beginning another one while it runs is refused.
 */
import type { KeySchema } from "../../keys/types.js";
import {
  absoluteAddress,
  formatStoreAddress,
  openStoreAt,
  parseStoreAddress,
  type StoreAddress,
} from "../../store/open/store-address.js";
import { SaltedTable } from "../../table/salted-table.js";
import { checkSameFields } from "../backfill.js";
import { LiveMigrationError } from "./live-migration-error.js";
import {
  type MigrationRecord,
  type MigrationTable,
  readMigrationRecord,
  tableRef,
  updateMigrationRecord,
} from "./migration-record.js";
import { isTableRecord, withRecordTable } from "./record-table.js";
import { checkServiceRekeying } from "./service-rekeying.js";
import { updateTableRecord } from "./table-migration-record.js";

export interface BeginLiveMigration {
  /** The record: a file, or `bigtable:TABLE` (held in the old table, for replicas). */
  migration: string;
  from: StoreAddress;
  fromSchema: KeySchema;
  to: StoreAddress;
  toSchema: KeySchema;
}

/** The migration's record, begun (or as it was, when the same migration was begun before). */
export async function beginLiveMigration(options: BeginLiveMigration): Promise<MigrationRecord> {
  const { migration: file, fromSchema, toSchema } = options;
  checkSameFields(fromSchema, toSchema);
  checkServiceRekeying(fromSchema, toSchema);
  const old = tableRef(formatStoreAddress(absoluteAddress(options.from)), fromSchema);
  const next = tableRef(formatStoreAddress(absoluteAddress(options.to)), toSchema);
  const same = (record: MigrationRecord) =>
    record.old.address === old.address &&
    record.old.fingerprint === old.fingerprint &&
    record.new.address === next.address &&
    record.new.fingerprint === next.fingerprint;
  if (isTableRecord(file)) {
    if (
      options.from.kind !== "bigtable" ||
      old.address !== formatStoreAddress(absoluteAddress(parseStoreAddress(file)))
    )
      throw new LiveMigrationError({ code: "record-not-in-old-table", migration: file, from: old.address });
    await checkNewTable(options.to, toSchema);
    return withRecordTable(file, (store) =>
      updateTableRecord(store, (current) => {
        if (current !== undefined) {
          if (same(current)) return current;
          throw differentMigration(file, current);
        }
        return begun(old, next);
      }),
    );
  }
  const existing = await readMigrationRecord(file);
  if (existing !== undefined) {
    if (same(existing)) return existing;
    throw differentMigration(file, existing);
  }
  await checkNewTable(options.to, toSchema);
  return updateMigrationRecord(file, (record) => {
    if (record !== undefined) {
      if (same(record)) return record;
      throw differentMigration(file, record);
    }
    return begun(old, next);
  });
}

const begun = (old: MigrationTable, next: MigrationTable): MigrationRecord => ({
  format: "keyspread-migration/1",
  old,
  new: next,
  phase: "single",
  revision: 0,
  history: [],
});

/** The new table must exist already, recording the new schema (keyspread table create). */
async function checkNewTable(address: StoreAddress, schema: KeySchema): Promise<void> {
  const store = await openStoreAt(address, { mustExist: true });
  try {
    await SaltedTable.open(store, schema);
  } finally {
    await store.close();
  }
}

function differentMigration(file: string, record: MigrationRecord): LiveMigrationError {
  return new LiveMigrationError({
    code: "different-migration",
    migration: file,
    old: record.old.address,
    new: record.new.address,
    phase: record.phase,
  });
}
