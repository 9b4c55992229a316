/**
 * A migration record held in the table several `keyspread serve` replicas write
 * (`table-migration-record.ts`), named on the command line as `bigtable:TABLE` instead of a file.
 */

import { openStoreAt, parseStoreAddress } from "../../store/open/store-address.js";
import type { Store } from "../../store/store.js";
import { LiveMigrationError } from "./live-migration-error.js";
import type { MigrationRecord } from "./migration-record.js";
import { readTableRecord } from "./table-migration-record.js";

/** A `--migration` value that names a table (the record held in it), not a file. */
export const isTableRecord = (migration: string): boolean => migration.startsWith("bigtable:");

/** Runs `body` with the table holding the record open. */
export async function withRecordTable<T>(migration: string, body: (store: Store) => Promise<T>): Promise<T> {
  const store = await openStoreAt(parseStoreAddress(migration), { mustExist: true });
  try {
    return await body(store);
  } finally {
    await store.close();
  }
}

export async function requireTableRecord(store: Store, migration: string): Promise<MigrationRecord> {
  const record = await readTableRecord(store);
  if (record === undefined) throw new LiveMigrationError({ code: "no-table-record", migration });
  return record;
}
