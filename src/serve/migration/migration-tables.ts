/**
 * The two tables of a live migration as the service holds them: opened when a phase needs them
 * (an embedded table is never created here), the one a phase writes or reads looked up by side,
 * each store closed once.
 */
import type { KeySchema } from "../../keys/types.js";
import type { MigrationSide } from "../../migrate/dual-write.js";
import { type MigrationRecord, schemaOf } from "../../migrate/live/migration-record.js";
import { openStoreAt, parseStoreAddress } from "../../store/open/store-address.js";
import type { Store } from "../../store/store.js";
import { type AppProfiles, SaltedTable } from "../../table/salted-table.js";

export interface MigrationTablesOptions {
  /** The record's file (named in schema errors). */
  file: string;
  /** Opens a table of the record by its address (default: `openStoreAt`, never creating an embedded table). */
  openStore?: (address: string) => Promise<Store>;
  appProfiles?: Pick<AppProfiles, "latest" | "scan">;
}

export class MigrationTables {
  old: SaltedTable | undefined;
  new: SaltedTable | undefined;
  private readonly closedStores = new Set<Store>();

  constructor(private readonly options: MigrationTablesOptions) {}

  /** The side's table; throws when the phase (named in the error) has not opened it. */
  of(side: MigrationSide, phase: string): SaltedTable {
    const table = this[side];
    if (table === undefined) throw new Error(`the ${side} table is not open in phase ${phase}`);
    return table;
  }

  /** Opens the record's table of that side (not kept: the caller assigns it). */
  async open(record: MigrationRecord, side: MigrationSide): Promise<SaltedTable> {
    const ref = record[side];
    // An embedded table is never created here: a missing one was not created yet, or was dropped.
    const open =
      this.options.openStore ??
      ((address: string) => openStoreAt(parseStoreAddress(address), { mustExist: true }));
    return this.tableOn(await open(ref.address), schemaOf(ref, this.options.file));
  }

  /** Closes the store unless it was closed before (or marked so). */
  async closeStore(store: Store): Promise<void> {
    if (this.closedStores.has(store)) return;
    this.closedStores.add(store);
    await store.close();
  }

  /** Closes both tables' stores, but not `kept` (the service's own). */
  async closeAllBut(kept: Store): Promise<void> {
    for (const store of [this.new?.store, this.old?.store]) {
      if (store && store !== kept) await this.closeStore(store);
    }
    this.old = undefined;
    this.new = undefined;
  }

  private async tableOn(store: Store, schema: KeySchema): Promise<SaltedTable> {
    try {
      return await SaltedTable.open(store, schema, {
        ...(this.options.appProfiles ? { appProfiles: this.options.appProfiles } : {}),
      });
    } catch (error) {
      await store.close();
      throw error;
    }
  }
}
