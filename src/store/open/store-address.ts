/**
 * One text form naming a table in any persistent store, for commands that take two of them:
 * `embedded:DIR/TABLE` (`embedded:TABLE` lives in ./.keyspread) and `bigtable:TABLE` or
 * `bigtable:PROJECT/INSTANCE/TABLE` (project and instance default to KEYSPREAD_BIGTABLE_PROJECT
 * and KEYSPREAD_BIGTABLE_INSTANCE).
 */
import { basename, dirname, resolve } from "node:path";
import { DEFAULT_EMBEDDED_DIRECTORY } from "../embedded/embedded-location.js";
import { type Store, StoreArgumentError } from "../store.js";
import { openStore } from "./open.js";

export type StoreAddress =
  | { kind: "embedded"; directory: string; table: string }
  | { kind: "bigtable"; table: string; projectId?: string; instanceId?: string };

const FORMS = "embedded:DIR/TABLE, embedded:TABLE, bigtable:TABLE or bigtable:PROJECT/INSTANCE/TABLE";
const BIGTABLE_FORMS = "bigtable:TABLE, bigtable:PROJECT/INSTANCE/TABLE";

export function parseStoreAddress(text: string): StoreAddress {
  const colon = text.indexOf(":");
  const kind = text.slice(0, colon);
  const rest = text.slice(colon + 1);
  if (colon < 0 || rest === "")
    throw new StoreArgumentError(
      "store",
      text,
      FORMS,
      `store "${text}" is not an address; allowed: ${FORMS}`,
    );
  if (kind === "embedded") {
    const table = basename(rest);
    return { kind, table, directory: rest.includes("/") ? dirname(rest) : DEFAULT_EMBEDDED_DIRECTORY };
  }
  if (kind === "bigtable") {
    const parts = rest.split("/");
    if (parts.length === 1) return { kind, table: rest };
    if (parts.length === 3 && parts.every(Boolean))
      return { kind, projectId: parts[0]!, instanceId: parts[1]!, table: parts[2]! };
    throw new StoreArgumentError(
      "store",
      text,
      BIGTABLE_FORMS,
      `store "${text}": expected ${BIGTABLE_FORMS.replace(", ", " or ")}`,
    );
  }
  throw new StoreArgumentError(
    "store",
    text,
    FORMS,
    `store "${text}": unknown kind "${kind}"; allowed: ${FORMS}`,
  );
}

export function formatStoreAddress(address: StoreAddress): string {
  if (address.kind === "embedded") return `embedded:${address.directory}/${address.table}`;
  return address.projectId
    ? `bigtable:${address.projectId}/${address.instanceId}/${address.table}`
    : `bigtable:${address.table}`;
}

/** Whether two addresses name one table (embedded paths compared resolved). */
export function namesSameTable(a: StoreAddress, b: StoreAddress): boolean {
  if (a.kind === "embedded" && b.kind === "embedded")
    return resolve(a.directory, a.table) === resolve(b.directory, b.table);
  return formatStoreAddress(a) === formatStoreAddress(b);
}

/** The address with an embedded table's directory made absolute, so processes in other directories agree on it. */
export function absoluteAddress(address: StoreAddress): StoreAddress {
  return address.kind === "embedded" ? { ...address, directory: resolve(address.directory) } : address;
}

/** Whether an open store (by its `name`) is the table at `address`; a Bigtable address without project and instance matches any. */
export function isStoreAt(storeName: string, address: StoreAddress): boolean {
  if (address.kind === "embedded") {
    return (
      storeName.startsWith("embedded:") &&
      resolve(storeName.slice("embedded:".length)) === resolve(address.directory, address.table)
    );
  }
  const [project, instance, table] = storeName.startsWith("bigtable:")
    ? storeName.slice("bigtable:".length).split("/")
    : [];
  return (
    table === address.table &&
    (address.projectId ?? project) === project &&
    (address.instanceId ?? instance) === instance
  );
}

/** The same table as `keyspread table` options: `--store … --table … [--dir …]`. */
export function tableCommandOptions(address: StoreAddress): string[] {
  return address.kind === "embedded"
    ? ["--store", "embedded", "--dir", address.directory, "--table", address.table]
    : ["--store", "bigtable", "--table", address.table];
}

/** Opens the table at `address`; `mustExist` refuses to create a missing one (sources to read). */
export function openStoreAt(address: StoreAddress, options: { mustExist?: boolean } = {}): Promise<Store> {
  return address.kind === "embedded"
    ? openStore("embedded", {
        table: address.table,
        directory: address.directory,
        mustExist: options.mustExist,
      })
    : openStore("bigtable", {
        table: address.table,
        bigtable: {
          ...(address.projectId ? { projectId: address.projectId } : {}),
          ...(address.instanceId ? { instanceId: address.instanceId } : {}),
        },
      });
}
