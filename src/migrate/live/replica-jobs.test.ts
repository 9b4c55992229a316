import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { metricsSchema } from "../../serve/ingest/points/metrics-schema.js";
import { runValidation } from "../../serve/migration/migration-jobs.js";
import { EmbeddedStore } from "../../store/embedded/embedded.js";
import { MemoryStore } from "../../store/memory/memory.js";
import { SaltedTable } from "../../table/salted-table.js";
import type { FollowingReplica } from "./migration-advance.js";
import type { MigrationPhase } from "./migration-phases.js";
import { type ServiceStatus, tableRef } from "./migration-record.js";
import { backfillForReplicas, validateForReplicas } from "./replica-jobs.js";
import { readTableRecord, updateTableRecord, writeReplicaReport } from "./table-migration-record.js";

const migration = "bigtable:p/i/old";
const [OLD, NEW] = [metricsSchema(1, 300_000), metricsSchema(16, 300_000)];
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "keyspread-replica-jobs-"));
  for (const [name, schema, rows] of [
    ["old", OLD, 3],
    ["new", NEW, 0],
  ] as const) {
    const store = await EmbeddedStore.open({ table: name, directory: dir });
    const table = await SaltedTable.open(store, schema, { create: true });
    for (let device = 0; device < rows; device++) {
      const values = { tenant: "t", deviceId: `d${device}`, interval: 0, segment: 1, writer: "r1" };
      await table.put(values, { v: Buffer.from("1") });
    }
    await store.close();
  }
});
afterAll(() => rm(dir, { recursive: true, force: true }));

const status = (revision: number, phase: MigrationPhase): ServiceStatus => ({
  pid: 1,
  host: "h",
  wal: "/wal",
  revision,
  phase,
  applied: true,
  completeBelow: 10,
  updatedAt: "2026-01-01T00:00:00.000Z",
});

/** A table-held record in `phase` (reached by one step from single), and its one live replica's report. */
async function recordIn(phase: "single" | "dual-write") {
  const store = new MemoryStore();
  const revision = phase === "single" ? 0 : 1;
  await updateTableRecord(store, () => ({
    format: "keyspread-migration/1",
    old: tableRef(`embedded:${dir}/old`, OLD),
    new: tableRef(`embedded:${dir}/new`, NEW),
    phase,
    revision,
    history:
      phase === "single" ? [] : [{ revision, from: "single", to: phase, at: "2026-01-01T00:00:00.000Z" }],
  }));
  await writeReplicaReport(store, { replica: "r1", ...status(revision, phase) });
  const live: FollowingReplica = { replica: "r1", host: "h", pid: 1, report: status(revision, phase) };
  return { store, migration, followingReplicas: async () => [live] };
}

describe("the jobs of a table-held live migration", () => {
  it("run only while every live replica writes both tables", async () => {
    const context = await recordIn("single");
    await expect(backfillForReplicas(context, { batch: 10 })).rejects.toMatchObject({
      code: "not-dual-writing",
      problem: { migration, job: "backfill", phase: "single", live: 1, behind: [] },
    });
    await expect(
      validateForReplicas(context, { sample: 1, rows: 1, ranges: 1 }, runValidation),
    ).rejects.toMatchObject({ code: "not-dual-writing", problem: { job: "validation" } });
  });

  it("backfill the new table from its checkpoint, then validate it clean and record that for advance", async () => {
    const context = await recordIn("dual-write");
    const checkpoint = join(dir, "checkpoint.json");
    const progress: number[] = [];
    const copied = await backfillForReplicas(context, { batch: 2, checkpoint }, (rows) =>
      progress.push(rows),
    );
    expect(copied).toEqual({
      migration,
      reverse: false,
      state: "complete",
      rowsRead: 3,
      rowsWritten: 3,
      checkpoint,
    });
    expect(progress.at(-1)).toBe(3);
    const validated = await validateForReplicas(context, { sample: 3, rows: 1, ranges: 2 }, runValidation);
    expect(validated.differences).toBe(0);
    expect(JSON.parse(validated.report.trim().split("\n").at(-1) ?? "")).toMatchObject({
      differences: 0,
      cut: { r1: 10 },
    });
    expect((await readTableRecord(context.store))?.validation).toMatchObject({
      state: "complete",
      differences: 0,
      dualWriteFrom: 1,
    });
  });
});
