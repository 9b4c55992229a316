/**
 * One way for the CLI (and users) to open any store by kind. Each backend is imported when it is
 * opened: the embedded store never loads gRPC, Bigtable never loads LevelDB.
 */
import type { BigtableStoreOptions, CreateBigtableTableOptions } from "../bigtable/bigtable.js";
import { MemoryStore } from "../memory/memory.js";
import type { Store } from "../store.js";

export const STORE_KINDS = ["memory", "embedded", "bigtable"] as const;
export type StoreKind = (typeof STORE_KINDS)[number];

export interface OpenStoreOptions {
  /** Table name: the embedded store's directory name, the Bigtable table id. */
  table: string;
  /** embedded: parent directory of the tables (default `./.keyspread`). */
  directory?: string;
  /** embedded: fail when the table is not there rather than creating it empty. */
  mustExist?: boolean;
  /** bigtable: project, instance, app profile, family, limits, client options (else from env). */
  bigtable?: Omit<BigtableStoreOptions, "tableId">;
  /** bigtable: create the table (with its family, GC rule and splits) instead of opening an existing one. */
  create?: boolean;
  /** bigtable with `create`: garbage-collect cells older than this many seconds. */
  maxAgeSeconds?: number;
  /** bigtable with `create`: versions of each cell to keep (default 1). */
  maxVersions?: number;
  /** bigtable with `create`: initial split keys (a salted table's: `bucketSplits(schema)`). */
  splits?: readonly Buffer[];
  /** bigtable with `create`: Bigtable's row key schema for the table. */
  rowKeySchema?: CreateBigtableTableOptions["rowKeySchema"];
}

export async function openStore(kind: StoreKind, options: OpenStoreOptions): Promise<Store> {
  switch (kind) {
    case "memory":
      return new MemoryStore({ name: options.table });
    case "embedded": {
      const { EmbeddedStore } = await import("../embedded/embedded.js");
      return EmbeddedStore.open({
        table: options.table,
        directory: options.directory,
        mustExist: options.mustExist,
      });
    }
    case "bigtable": {
      const { BigtableStore } = await import("../bigtable/bigtable.js");
      const bigtable = { ...options.bigtable, tableId: options.table };
      return options.create
        ? BigtableStore.createTable({
            ...bigtable,
            maxAgeSeconds: options.maxAgeSeconds,
            maxVersions: options.maxVersions,
            splits: options.splits,
            rowKeySchema: options.rowKeySchema,
          })
        : BigtableStore.open(bigtable);
    }
    default:
      throw new TypeError(`store is ${JSON.stringify(kind)}; allowed: ${STORE_KINDS.join(", ")}`);
  }
}
