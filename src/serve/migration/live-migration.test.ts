/**
 * `startIngestService` following a migration record while it runs: the phases' writes and reads,
 * the jobs it runs for `migrate backfill|validate --migration`, a restart mid-migration, and an
 * unlucky operator's records (another table, a new table that is not there yet).
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { advanceMigration } from "../../migrate/live/migration-advance.js";
import type { MigrationPhase } from "../../migrate/live/migration-phases.js";
import {
  type MigrationRecord,
  readMigrationRecord,
  tableRef,
  updateMigrationRecord,
} from "../../migrate/live/migration-record.js";
import { EmbeddedStore } from "../../store/embedded/embedded.js";
import { MemoryStore } from "../../store/memory/memory.js";
import type { Store } from "../../store/store.js";
import { SaltedTable } from "../../table/salted-table.js";
import { DeviceReads } from "../http/device-reads.js";
import { metricsSchema } from "../ingest/points/metrics-schema.js";
import { encodeMetricPoints } from "../ingest/points/point-codec.js";
import { ndjson, point, T0 } from "../ingest/points/points.testsuite.js";
import { type IngestService, startIngestService } from "../ingest-service.js";
import { UnreadableMigrationRecord } from "./migration-follower.js";

const INTERVAL = 100;
const OLD_SCHEMA = metricsSchema(1, INTERVAL);
const NEW_SCHEMA = metricsSchema(16, INTERVAL);

/** A memory store answering to an embedded table's address (the record names tables by address). */
function memoryAt(address: string): { store: Store; memory: MemoryStore } {
  const memory = new MemoryStore({ name: address });
  const store: Store = {
    name: address,
    write: (mutations, options) => memory.write(mutations, options),
    checkAndMutate: (mutation, condition, options) => memory.checkAndMutate(mutation, condition, options),
    get: (key, options) => memory.get(key, options),
    read: (ranges, options) => memory.read(ranges, options),
    sampleKeys: (count) => memory.sampleKeys(count),
    close: () => memory.close(),
  };
  return { store, memory };
}

async function begin(file: string, oldAddress: string, newAddress: string): Promise<void> {
  await updateMigrationRecord(file, () => ({
    format: "keyspread-migration/1",
    old: tableRef(oldAddress, OLD_SCHEMA),
    new: tableRef(newAddress, NEW_SCHEMA),
    phase: "single",
    revision: 0,
    history: [],
  }));
}

/** Waits until the service reports the record's revision applied (or an error, when `error` is expected). */
async function applied(file: string, options: { error?: RegExp } = {}): Promise<MigrationRecord> {
  let record: MigrationRecord | undefined;
  await expect
    .poll(
      async () => {
        record = await readMigrationRecord(file);
        const service = record?.service;
        if (service?.revision !== record?.revision) return "waiting";
        return options.error ? (service?.error ?? "no error") : service?.applied ? "applied" : "waiting";
      },
      { timeout: 10_000, interval: 20 },
    )
    .toMatch(options.error ?? /^applied$/);
  return record!;
}

async function move(file: string, from: MigrationPhase, to: MigrationPhase): Promise<MigrationRecord> {
  await updateMigrationRecord(file, (record) => advanceMigration(record, from, to, { file }).record);
  return applied(file);
}

async function request(file: string, change: (record: MigrationRecord) => void): Promise<void> {
  await updateMigrationRecord(file, (record) => {
    change(record!);
    return record;
  });
}

async function ingest(service: IngestService, deviceId: string, ts: number): Promise<void> {
  const res = await fetch(`${service.url}/v1/ingest`, {
    method: "POST",
    headers: { "content-type": "application/x-ndjson" },
    body: ndjson([point(deviceId, ts)]),
  });
  expect(res.status).toBe(200);
  await service.pipeline.flush();
}

async function latest(service: IngestService, deviceId = "d"): Promise<number[]> {
  const res = await fetch(`${service.url}/v1/devices/${deviceId}/latest?tenant=t&n=100`);
  return ((await res.json()) as { points: { ts: number }[] }).points.map((p) => p.ts - T0);
}

const stored = async (store: Store, schema = NEW_SCHEMA, deviceId = "d") =>
  (
    await new DeviceReads(await SaltedTable.open(store, schema), {
      intervalMs: INTERVAL,
      cacheTtlMs: 0,
    }).latest("t", deviceId, 100)
  ).map((p) => p.ts - T0);

async function waitForJob(file: string, job: "backfill" | "validation") {
  await expect
    .poll(async () => (await readMigrationRecord(file))?.[job]?.state, { timeout: 20_000, interval: 20 })
    .toMatch(/complete|failed/);
  return (await readMigrationRecord(file))![job]!;
}

describe("a service following a live migration, step by step", () => {
  let directory: string;
  let file: string;
  let oldAddress: string;
  let newAddress: string;
  let oldStore: Store;
  let newStore: Store;
  let service: IngestService;
  /** The record once dual-write was applied. */
  let dual: MigrationRecord;

  beforeAll(async () => {
    directory = await mkdtemp(join(tmpdir(), "live-"));
    file = join(directory, "metrics.migration.json");
    [oldAddress, newAddress] = [`embedded:${directory}/old`, `embedded:${directory}/new`];
    oldStore = memoryAt(oldAddress).store;
    newStore = memoryAt(newAddress).store;
    await SaltedTable.open(newStore, NEW_SCHEMA, { create: true });
    service = await startIngestService({
      store: oldStore,
      buckets: 1,
      intervalMs: INTERVAL,
      latestCacheTtlMs: 0,
      walDirectory: join(directory, "wal"),
      migration: { file, openStore: async () => newStore },
      log: () => {},
    });
    await ingest(service, "d", T0 + 1);
  });

  afterAll(async () => {
    await service?.close();
  });

  it("changes nothing when the record appears while it runs (migrate begin)", async () => {
    await begin(file, oldAddress, newAddress);
    expect((await applied(file)).service).toMatchObject({ phase: "single", applied: true });
    expect(await stored(oldStore, OLD_SCHEMA)).toEqual([1]);
    expect(await stored(newStore)).toEqual([]);
  });

  it("writes both tables in dual-write, still serving the old", async () => {
    dual = await move(file, "single", "dual-write");
    expect(dual.service!.dualWriteFrom).toBeGreaterThan(0);
    await ingest(service, "d", T0 + 2);
    expect(await stored(oldStore, OLD_SCHEMA)).toEqual([2, 1]);
    expect(await stored(newStore)).toEqual([2]);
    expect(service.table.store).toBe(oldStore);
  });

  it("finds by validation the rows the backfill has not copied yet, and keeps reads on the old table", async () => {
    await request(file, (record) => {
      record.validation = {
        id: "first",
        state: "requested",
        sample: 10,
        rowsPerEntity: 100,
        ranges: 4,
        requestedAt: new Date().toISOString(),
        updatedAt: new Date().toISOString(),
      };
    });
    expect(await waitForJob(file, "validation")).toMatchObject({
      state: "complete",
      differences: expect.any(Number),
      dualWriteFrom: dual.service!.dualWriteFrom,
    });
    expect((await readMigrationRecord(file))!.validation!.differences).toBeGreaterThan(0);
    await expect(move(file, "dual-write", "reads-on-new")).rejects.toThrow(/found \d+ difference/);
  });

  it("copies them by backfill, and the next validation finds none", async () => {
    await request(file, (record) => {
      record.backfill = {
        dualWriteFrom: dual.service!.dualWriteFrom!,
        state: "requested",
        checkpoint: join(directory, "backfill.json"),
        batchSize: 100,
        rowsRead: 0,
        rowsWritten: 0,
        runs: 0,
        requestedAt: new Date().toISOString(),
        updatedAt: new Date().toISOString(),
      };
    });
    expect(await waitForJob(file, "backfill")).toMatchObject({ state: "complete", runs: 1 });
    expect(await stored(newStore)).toEqual([2, 1]);
    await request(file, (record) => {
      record.validation = { ...record.validation!, id: "second", state: "requested" };
    });
    expect(await waitForJob(file, "validation")).toMatchObject({ state: "complete", differences: 0 });
  });

  it("reads a row only the new table has once reads moved, and not after a rollback", async () => {
    await move(file, "dual-write", "reads-on-new");
    expect(service.table.store).toBe(newStore);
    await SaltedTable.open(newStore, NEW_SCHEMA).then((table) =>
      table.putMany([
        {
          values: { tenant: "t", deviceId: "d", interval: T0, segment: 1, writer: "w" },
          cells: new Map([["p", encodeMetricPoints([point("d", T0 + 9)], T0)]]),
        },
      ]),
    );
    expect(await latest(service)).toEqual([9, 2, 1]);
    await move(file, "reads-on-new", "dual-write");
    expect(await latest(service)).toEqual([2, 1]);
    await move(file, "dual-write", "reads-on-new");
  });

  it("writes only the new table once writes moved", async () => {
    const writesMoved = await move(file, "reads-on-new", "writes-on-new");
    expect(writesMoved.service!.oldMissesFrom).toBeGreaterThan(0);
    await ingest(service, "d", T0 + 3);
    expect(await stored(newStore)).toEqual([9, 3, 2, 1]);
    expect(await stored(oldStore, OLD_SCHEMA)).toEqual([2, 1]);
  });

  it("rolled back, keeps reads on the new table until the old one is copied back and validated", async () => {
    const resumed = await move(file, "writes-on-new", "reads-on-new");
    // Refused: writes left the old table (the service says from which segment), and no validation
    // of a reverse copy proves it whole.
    expect(resumed.service?.oldMissesFrom).toBeGreaterThan(0);
    await expect(move(file, "reads-on-new", "dual-write")).rejects.toMatchObject({
      name: "LiveMigrationError",
      problem: { code: "refused", refusal: { reason: "old-table-incomplete" } },
    });
    expect(await readMigrationRecord(file)).toMatchObject({
      phase: "reads-on-new",
      revision: resumed.revision,
    });
    await request(file, (record) => {
      record.backfill = {
        ...record.backfill!,
        dualWriteFrom: resumed.service!.dualWriteFrom!,
        reverse: true,
        state: "requested",
        checkpoint: join(directory, "reverse.json"),
        runs: 0,
      };
    });
    expect(await waitForJob(file, "backfill")).toMatchObject({ state: "complete", reverse: true });
    expect(await stored(oldStore, OLD_SCHEMA)).toEqual([9, 3, 2, 1]);
    await request(file, (record) => {
      record.validation = { ...record.validation!, id: "third", state: "requested" };
    });
    expect(await waitForJob(file, "validation")).toMatchObject({ state: "complete", differences: 0 });
    await move(file, "reads-on-new", "dual-write");
    expect(await latest(service)).toEqual([9, 3, 2, 1]);
    await move(file, "dual-write", "reads-on-new");
    await move(file, "reads-on-new", "writes-on-new");
  });

  it("lets the old table go at done, and goes back to writes-on-new without it", async () => {
    await move(file, "writes-on-new", "done");
    await expect(stored(oldStore, OLD_SCHEMA)).rejects.toThrow(/closed/);
    await ingest(service, "d", T0 + 4);
    expect(await latest(service)).toEqual([9, 4, 3, 2, 1]);
    // Back to writes-on-new needs no old table (it may be gone); only reads-on-new would.
    await move(file, "done", "writes-on-new");
    await ingest(service, "d", T0 + 5);
    expect(await latest(service)).toEqual([9, 5, 4, 3, 2, 1]);
  });
});

describe("a service following a live migration", () => {
  it("resumes in the record's phase after a restart, keeping its dual-write start", async () => {
    const directory = await mkdtemp(join(tmpdir(), "live-restart-"));
    const file = join(directory, "metrics.migration.json");
    const newTable = await EmbeddedStore.open({ table: "new", directory });
    await SaltedTable.open(newTable, NEW_SCHEMA, { create: true });
    await newTable.close();
    const start = async () =>
      startIngestService({
        store: await EmbeddedStore.open({ table: "old", directory }),
        buckets: 1,
        intervalMs: INTERVAL,
        latestCacheTtlMs: 0,
        walDirectory: join(directory, "wal"),
        migration: { file },
        log: () => {},
      });
    const first = await start();
    await begin(file, `embedded:${directory}/old`, `embedded:${directory}/new`);
    await applied(file);
    const { service } = await move(file, "single", "dual-write");
    await ingest(first, "d", T0 + 1);
    await first.close();

    const second = await start();
    try {
      const record = (await readMigrationRecord(file))!;
      expect(record.service).toMatchObject({
        phase: "dual-write",
        applied: true,
        dualWriteFrom: service!.dualWriteFrom,
      });
      expect(record.service!.pid).toBe(process.pid);
      await ingest(second, "d", T0 + 2);
      expect(second.pipeline.totals.rowsWritten).toBe(1);
      expect(await latest(second)).toEqual([2, 1]);
    } finally {
      await second.close();
    }
    const check = await EmbeddedStore.open({ table: "new", directory });
    expect(await stored(check)).toEqual([2, 1]);
    await check.close();
  });

  it("reports a new table it cannot open, stays in its phase, and applies it once the table exists", async () => {
    const directory = await mkdtemp(join(tmpdir(), "live-missing-"));
    const file = join(directory, "m.json");
    const oldAddress = `embedded:${directory}/old`;
    const { store: newStore } = memoryAt(`embedded:${directory}/new`);
    let created = false;
    const missing = "no such table: embedded store …/new does not exist";
    const service = await startIngestService({
      store: memoryAt(oldAddress).store,
      buckets: 1,
      intervalMs: INTERVAL,
      walDirectory: join(directory, "wal"),
      migration: {
        file,
        openStore: async () => {
          if (!created) throw new Error(missing);
          return newStore;
        },
      },
      log: () => {},
    });
    try {
      await begin(file, oldAddress, `embedded:${directory}/new`);
      await applied(file);
      await updateMigrationRecord(
        file,
        (record) => advanceMigration(record, "single", "dual-write", { file }).record,
      );
      const failed = await applied(file, { error: /no such table/ });
      expect(failed.service).toMatchObject({ phase: "single", applied: false });
      expect(() => advanceMigration(failed, "dual-write", "reads-on-new", { file })).toThrow(
        expect.objectContaining({
          name: "LiveMigrationError",
          problem: expect.objectContaining({
            code: "refused",
            refusal: expect.objectContaining({
              reason: "service-not-applied",
              phase: "dual-write",
              error: missing,
            }),
          }),
        }),
      );
      await ingest(service, "d", T0 + 1);

      await SaltedTable.open(newStore, NEW_SCHEMA, { create: true });
      created = true;
      expect((await applied(file)).service).toMatchObject({ phase: "dual-write", applied: true });
      await ingest(service, "d", T0 + 2);
      expect(await stored(newStore)).toEqual([2]);
    } finally {
      await service.close();
    }
  });

  it("refuses to start on a damaged record, and keeps its phase when the record is damaged while it runs", async () => {
    const directory = await mkdtemp(join(tmpdir(), "live-damaged-"));
    const file = join(directory, "m.json");
    await writeFile(file, '{"format": "keyspread-migration/1", "phase": "dual-wr');
    const options = {
      buckets: 1,
      intervalMs: INTERVAL,
      walDirectory: join(directory, "wal"),
      migration: { file },
    };
    await expect(
      startIngestService({ ...options, store: memoryAt(`embedded:${directory}/old`).store, log: () => {} }),
    ).rejects.toThrow(expect.objectContaining({ name: UnreadableMigrationRecord.name, file }));

    const { store: newStore } = memoryAt(`embedded:${directory}/new`);
    await SaltedTable.open(newStore, NEW_SCHEMA, { create: true });
    await rm(file);
    const lines: string[] = [];
    const service = await startIngestService({
      ...options,
      migration: { file, openStore: async () => newStore },
      store: memoryAt(`embedded:${directory}/old`).store,
      log: (line) => lines.push(line),
    });
    try {
      await begin(file, `embedded:${directory}/old`, `embedded:${directory}/new`);
      await applied(file);
      await move(file, "single", "dual-write");
      await writeFile(file, "not json");
      await expect
        .poll(() => lines.some((line) => line.includes('"event":"migration-unreadable"')))
        .toBe(true);
      await ingest(service, "d", T0 + 1);
      expect(await stored(newStore)).toEqual([1]);
    } finally {
      await service.close();
    }
  });

  it("refuses to start on a record that moves another table, and ignores one that appears later", async () => {
    const directory = await mkdtemp(join(tmpdir(), "live-other-"));
    const file = join(directory, "m.json");
    await begin(file, `embedded:${directory}/other`, `embedded:${directory}/new`);
    const options = {
      buckets: 1,
      intervalMs: INTERVAL,
      walDirectory: join(directory, "wal"),
      migration: { file },
      log: () => {},
    };
    await expect(
      startIngestService({ ...options, store: memoryAt(`embedded:${directory}/old`).store }),
    ).rejects.toMatchObject({
      name: "LiveMigrationError",
      problem: {
        code: "serves-another-table",
        migration: file,
        old: `embedded:${directory}/other`,
        new: `embedded:${directory}/new`,
        serves: `embedded:${directory}/old`,
      },
    });

    const laterFile = join(directory, "later.json");
    const service = await startIngestService({
      ...options,
      migration: { file: laterFile },
      store: memoryAt(`embedded:${directory}/old`).store,
    });
    try {
      await begin(laterFile, `embedded:${directory}/other`, `embedded:${directory}/new`);
      expect((await applied(laterFile, { error: /this service serves/ })).service).toMatchObject({
        phase: "single",
        applied: false,
      });
      await ingest(service, "d", T0 + 1);
      expect(await latest(service)).toEqual([1]);
    } finally {
      await service.close();
    }
  });
});
