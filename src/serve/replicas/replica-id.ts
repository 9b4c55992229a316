/**
 * A replica's writer id: random at the first start, kept in `<wal>/replica-id`, so a restart on the
 * same log directory (and its replay) writes rows under the same id, and two log directories never
 * share one (the registry, `replica-registry.ts`, refuses a copied directory whose holder is alive).
 * It is the row key's `writer` field: ten lowercase hex characters, so it never holds the key's
 * `#` separator.
 */
import { randomBytes } from "node:crypto";
import { open, readFile } from "node:fs/promises";
import { join } from "node:path";
import { syncDirectory } from "../../io/sync-directory.js";

export const REPLICA_ID_FILE = "replica-id";
const REPLICA_ID = /^[0-9a-f]{10}$/;

/** The log directory's replica-id file holds `found` (its first 40 characters), not an id. */
export class DamagedReplicaId extends Error {
  override readonly name = "DamagedReplicaId";
  constructor(
    readonly path: string,
    readonly found: string,
  ) {
    super(
      `${path} holds ${JSON.stringify(found)}, not a replica id (10 hex characters); it names this log's rows: restore it, or move the log directory aside`,
    );
  }
}

/** The log directory's replica id, created (durably, exclusively) when the directory has none. */
export async function readOrCreateReplicaId(walDirectory: string): Promise<string> {
  const path = join(walDirectory, REPLICA_ID_FILE);
  const existing = await readReplicaId(path);
  if (existing !== undefined) return existing;
  const id = randomBytes(5).toString("hex");
  try {
    const file = await open(path, "wx");
    try {
      await file.writeFile(`${id}\n`);
      await file.sync();
    } finally {
      await file.close();
    }
    syncDirectory(walDirectory);
    return id;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    // Another start created it first: its id is the one.
    const created = await readReplicaId(path);
    if (created === undefined) throw new Error(`${path} was created by another start and is gone again`);
    return created;
  }
}

async function readReplicaId(path: string): Promise<string | undefined> {
  let text: string;
  try {
    text = (await readFile(path, "utf8")).trim();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
  if (!REPLICA_ID.test(text)) {
    throw new DamagedReplicaId(path, text.slice(0, 40));
  }
  return text;
}
