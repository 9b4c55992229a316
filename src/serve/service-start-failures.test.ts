/**
 * A start that fails at any step leaves nothing open: no watcher, timer, listening socket or file
 * of its own, and its tables closed — the migration's new table too. Every step is failed in turn:
 * each call the service makes to its store (opening the table, the replica registry, the log's
 * replay, …), the migration record, the API key file, the write-ahead log and the port.
 */
import { createHook } from "node:async_hooks";
import { readdirSync, readlinkSync } from "node:fs";
import { mkdir, mkdtemp, writeFile } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { beforeAll, describe, expect, it } from "vitest";
import { tableRef, updateMigrationRecord } from "../migrate/live/migration-record.js";
import { MemoryStore } from "../store/memory/memory.js";
import type { Store } from "../store/store.js";
import { SaltedTable } from "../table/salted-table.js";
import { updateApiKeyFile } from "./auth/api-key-file.js";
import { newApiKey } from "./auth/api-keys.js";
import { metricsSchema } from "./ingest/points/metrics-schema.js";
import { type IngestServiceOptions, startIngestService } from "./ingest-service.js";

/** Handles a failed start could leave behind (file handles are counted apart: node reports their end late). */
const LEAKABLE = new Set(["Timeout", "FSEVENTWRAP", "STATWATCHER", "TCPSERVERWRAP", "TCPWRAP"]);

/** The files under `directory` this process holds open (Linux: /proc/self/fd). */
function openFilesUnder(directory: string): string[] {
  return readdirSync("/proc/self/fd").flatMap((fd) => {
    try {
      const target = readlinkSync(`/proc/self/fd/${fd}`);
      return target.startsWith(`${directory}/`) ? [target] : [];
    } catch {
      return []; // closed meanwhile (the listing's own descriptor)
    }
  });
}

/**
 * The async resources created while `run` runs that are still alive once it settled, and the files
 * under the test's directory left open (LevelDB's and the log's included).
 */
async function leftOpen(run: () => Promise<unknown>): Promise<{ error: unknown; open: string[] }> {
  const filesBefore = new Set(openFilesUnder(directory));
  const alive = new Map<number, string>();
  let recording = true;
  const hook = createHook({
    init(id, type) {
      if (recording && LEAKABLE.has(type)) alive.set(id, type);
    },
    destroy(id) {
      alive.delete(id);
    },
  }).enable();
  let error: unknown;
  try {
    await run();
  } catch (caught) {
    error = caught;
  }
  recording = false;
  // Let the handles closed last report their end.
  for (let turn = 0; turn < 5; turn++) await new Promise((resolve) => setImmediate(resolve));
  hook.disable();
  // A stream's descriptor is closed a moment after its end resolved (the access log's): wait for
  // that, a while; a handle nobody closes stays open.
  const newFiles = () => openFilesUnder(directory).filter((file) => !filesBefore.has(file));
  for (let waited = 0; waited < 2_000 && newFiles().length > 0; waited += 20) await sleep(20);
  return { error, open: [...alive.values(), ...newFiles()] };
}

/** The failure a test store throws at its `call`-th call. */
class InjectedFailure extends Error {
  override readonly name = "InjectedFailure";
  constructor(
    readonly call: number,
    readonly operation: string,
  ) {
    super(`injected failure of call ${call} (${operation})`);
  }
}

/** The injected failure `error` is, or was caused by (a step may wrap its store's error). */
function injectedFailureIn(error: unknown): InjectedFailure | undefined {
  for (let at = error; at instanceof Error; at = at.cause) if (at instanceof InjectedFailure) return at;
  return undefined;
}

/**
 * A memory store whose `failAt`-th call (counting every operation but `close`) throws, and that
 * knows whether it was closed. `name`: the table's address it answers to (a migration record names
 * tables by address).
 */
function failingStore(
  failAt: number,
  name?: string,
): { store: Store; calls: () => number; closed: () => boolean } {
  const inner = new MemoryStore({ name: "memory:metrics" });
  let calls = 0;
  let closed = false;
  const store = new Proxy(inner, {
    get(target, property, receiver) {
      if (property === "name" && name !== undefined) return name;
      const value = Reflect.get(target, property, receiver);
      if (typeof value !== "function") return value;
      if (property === "close") {
        return () => {
          closed = true;
          return target.close();
        };
      }
      return (...args: unknown[]) => {
        calls++;
        if (calls === failAt) throw new InjectedFailure(failAt, String(property));
        return value.apply(target, args);
      };
    },
  });
  return { store, calls: () => calls, closed: () => closed };
}

let directory: string;

describe("a service start that fails", () => {
  let options: Omit<IngestServiceOptions, "store">;

  beforeAll(async () => {
    directory = await mkdtemp(join(tmpdir(), "serve-start-failures-"));
    const { entry } = newApiKey("acme", ["ingest", "read"]);
    await updateApiKeyFile(join(directory, "keys.json"), (file) => file.keys.push(entry));
    options = {
      walDirectory: join(directory, "wal"),
      migration: { file: join(directory, "m.json") },
      authFile: join(directory, "keys.json"),
      accessLogPath: join(directory, "access.jsonl"),
      retention: { maxAgeMs: 3_600_000 },
      replicas: { heartbeatMs: 1_000, leaseMs: 5_000 },
      intervalMs: 100,
      log: () => {},
    };
  });

  it("at each call to its store closes everything it opened, the store included", async () => {
    let failAt = 1;
    for (; failAt < 200; failAt++) {
      const { store, closed } = failingStore(failAt);
      let started: Awaited<ReturnType<typeof startIngestService>> | undefined;
      const { error, open } = await leftOpen(async () => {
        started = await startIngestService({ ...options, store });
      });
      if (started) {
        await started.close();
        break;
      }
      expect(injectedFailureIn(error), `call ${failAt}`).toMatchObject({ call: failAt });
      expect(open, `left open when call ${failAt} failed`).toEqual([]);
      expect(closed(), `store closed when call ${failAt} failed`).toBe(true);
    }
    // The start makes several calls before it listens: each of them was failed once.
    expect(failAt).toBeGreaterThan(3);
  });

  it.each([
    ["the migration record", { migration: { file: "m-damaged.json" } }],
    ["the API key file", { authFile: "keys-damaged.json" }],
    ["the write-ahead log", { walDirectory: "wal-is-a-file" }],
  ] as const)("at %s closes everything it opened", async (_step, broken) => {
    const base = join(directory, _step.replaceAll(" ", "-"));
    await mkdir(base, { recursive: true });
    await writeFile(join(base, "m-damaged.json"), '{"format": "keyspread-migration/1", "phase"');
    await writeFile(join(base, "keys-damaged.json"), "{ not json");
    await writeFile(join(base, "wal-is-a-file"), "");
    const override = Object.fromEntries(
      Object.entries(broken).map(([field, value]) => [
        field,
        typeof value === "string" ? join(base, value) : { file: join(base, value.file) },
      ]),
    );
    const { store, closed } = failingStore(Number.POSITIVE_INFINITY);
    const { error, open } = await leftOpen(() =>
      startIngestService({ ...options, walDirectory: join(base, "wal"), ...override, store }),
    );
    expect(error).toBeInstanceOf(Error);
    expect(open).toEqual([]);
    expect(closed()).toBe(true);
  });

  it("after its migration follower opened both tables of a dual-write closes the new table too", async () => {
    const base = join(directory, "dual-write");
    await mkdir(base, { recursive: true });
    const [oldAddress, newAddress] = [`embedded:${base}/old`, `embedded:${base}/new`];
    const newSchema = metricsSchema(4, 100);
    const file = join(base, "m.json");
    await updateMigrationRecord(file, () => ({
      format: "keyspread-migration/1",
      old: tableRef(oldAddress, metricsSchema(1, 100)),
      new: tableRef(newAddress, newSchema),
      phase: "dual-write",
      revision: 1,
      history: [],
    }));
    await writeFile(join(base, "keys-damaged.json"), "{ not json");
    const home = failingStore(Number.POSITIVE_INFINITY, oldAddress);
    const other = failingStore(Number.POSITIVE_INFINITY, newAddress);
    await SaltedTable.open(other.store, newSchema, { create: true });
    let opened = 0;
    const { error, open } = await leftOpen(() =>
      startIngestService({
        ...options,
        buckets: 1,
        walDirectory: join(base, "wal"),
        migration: {
          file,
          openStore: async () => {
            opened++;
            return other.store;
          },
        },
        // The step after the follower: the API key file.
        authFile: join(base, "keys-damaged.json"),
        store: home.store,
      }),
    );
    expect(error).toBeInstanceOf(Error);
    expect({ newTableOpened: opened, open, homeClosed: home.closed(), newClosed: other.closed() }).toEqual({
      newTableOpened: 1,
      open: [],
      homeClosed: true,
      newClosed: true,
    });
  });

  it("at its port closes everything it opened", async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, "127.0.0.1", resolve));
    const { port } = taken.address() as { port: number };
    try {
      const { store, closed } = failingStore(Number.POSITIVE_INFINITY);
      const { error, open } = await leftOpen(() =>
        startIngestService({ ...options, walDirectory: join(directory, "wal-port"), port, store }),
      );
      expect(String(error)).toMatch(/EADDRINUSE/);
      expect(open).toEqual([]);
      expect(closed()).toBe(true);
    } finally {
      taken.close();
    }
  });
});
