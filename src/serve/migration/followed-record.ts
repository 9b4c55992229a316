/**
 * The checks a service makes of a migration record before following it: the record names this
 * service's table, with its schema, as the old table, keeps naming the same two tables, changes
 * only the salt, and is followed by no other live service on this host.
 */
import { hostname } from "node:os";
import { isAlive } from "../../io/file-lock.js";
import type { KeySchema } from "../../keys/types.js";
import { LiveMigrationError } from "../../migrate/live/live-migration-error.js";
import { type MigrationRecord, schemaOf } from "../../migrate/live/migration-record.js";
import { checkServiceRekeying } from "../../migrate/live/service-rekeying.js";
import { isStoreAt, parseStoreAddress } from "../../store/open/store-address.js";
import type { Store } from "../../store/store.js";

export interface FollowingService {
  /** The record's file. */
  file: string;
  homeStore: Store;
  homeSchema: KeySchema;
  walDirectory: string;
}

/** Throws when the record is not one this service can follow; `known` is the record it follows now. */
export function checkFollowedRecord(
  record: MigrationRecord,
  known: MigrationRecord | undefined,
  { file, homeStore, homeSchema }: FollowingService,
): void {
  if (known !== undefined) {
    for (const side of ["old", "new"] as const) {
      if (
        known[side].address !== record[side].address ||
        known[side].fingerprint !== record[side].fingerprint
      )
        throw new Error(
          `migration ${file} now names ${record[side].address} (${record[side].fingerprint}) as the ${side} table, not ${known[side].address} (${known[side].fingerprint}); restart the service to follow another migration`,
        );
    }
  }
  if (!isStoreAt(homeStore.name, parseStoreAddress(record.old.address))) {
    throw new LiveMigrationError({
      code: "serves-another-table",
      migration: file,
      old: record.old.address,
      new: record.new.address,
      serves: homeStore.name,
    });
  }
  if (record.old.fingerprint !== homeSchema.fingerprint) {
    throw new Error(
      `migration ${file} records the old table's schema as ${record.old.fingerprint}, but this service writes ${homeSchema.fingerprint} (check --buckets and --interval)`,
    );
  }
  checkServiceRekeying(homeSchema, schemaOf(record.new, file));
}

/** Two services following one record would overwrite each other's reports. */
export function checkSoleFollower(record: MigrationRecord, { file, walDirectory }: FollowingService): void {
  const other = record.service;
  if (
    other !== undefined &&
    other.pid !== process.pid &&
    other.host === hostname() &&
    other.wal !== walDirectory &&
    isAlive(other.pid)
  ) {
    throw new Error(
      `migration ${file} is followed by another service (process ${other.pid}, log ${other.wal}); give each service its own --migration file`,
    );
  }
}
