import { describe, expect, it } from "vitest";
import { advanceMigration, replicasBehind } from "../../migrate/live/migration-advance.js";
import type { MigrationRecord } from "../../migrate/live/migration-record.js";
import {
  readTableRecord,
  updateTableRecord,
  writeReplicaReport,
} from "../../migrate/live/table-migration-record.js";
import { MemoryStore } from "../../store/memory/memory.js";
import { ReplicaRegistry } from "../replicas/replica-registry.js";
import { followingReplicas } from "./following-replicas.js";

const table = (address: string) => ({ address, spec: {}, fingerprint: `fp-${address}` });
const begun: MigrationRecord = {
  format: "keyspread-migration/1",
  old: table("bigtable:p/i/old"),
  new: table("bigtable:p/i/new"),
  phase: "single",
  revision: 0,
  history: [],
};
const report = (replica: string, revision: number, applied = true) => ({
  replica,
  pid: 1,
  host: "h",
  wal: `/wal-${replica}`,
  revision,
  phase: revision === 0 ? ("single" as const) : ("dual-write" as const),
  applied,
  completeBelow: 10,
  updatedAt: "2026-01-01T00:00:00.000Z",
});

describe("a migration record held in the table, followed by three replicas", () => {
  it("advance waits for every live replica and names the one that has not applied the phase", async () => {
    const store = new MemoryStore();
    const log = () => {};
    const registries = await Promise.all(
      ["r1", "r2", "r3"].map((id) => ReplicaRegistry.join(store, id, { walDirectory: `/wal-${id}`, log })),
    );
    try {
      await updateTableRecord(store, () => begun);
      // Two replicas applied single; r3 has not reported yet.
      await writeReplicaReport(store, report("r1", 0));
      await writeReplicaReport(store, report("r2", 0));
      const advance = async (force = false) =>
        updateTableRecord(
          store,
          (record) =>
            advanceMigration(record, "single", "dual-write", {
              file: "bigtable:p/i/old",
              force,
              replicas: [...replicas],
            }).record,
        );
      let replicas = await followingReplicas(store);
      expect(replicas.map((r) => r.replica).sort()).toEqual(["r1", "r2", "r3"]);
      expect(
        replicasBehind(begun, replicas).map(({ replica, report }) => ({
          replica,
          reported: report !== undefined,
        })),
      ).toEqual([{ replica: "r3", reported: false }]);
      await expect(advance()).rejects.toMatchObject({
        name: "LiveMigrationError",
        problem: {
          code: "refused",
          refusal: { reason: "replicas-behind", behind: [expect.objectContaining({ replica: "r3" })] },
        },
      });
      expect((await readTableRecord(store))?.phase).toBe("single");

      await writeReplicaReport(store, report("r3", 0));
      replicas = await followingReplicas(store);
      const moved = (await advance())!;
      expect(moved).toMatchObject({ phase: "dual-write", revision: 1 });

      // r2 applies dual-write, r1 and r3 not yet: the next step is refused, naming both.
      await writeReplicaReport(store, report("r2", 1));
      await writeReplicaReport(store, report("r3", 1, false));
      replicas = await followingReplicas(store);
      expect(
        replicasBehind(moved, replicas)
          .map((r) => r.replica)
          .sort(),
      ).toEqual(["r1", "r3"]);
      await expect(
        updateTableRecord(
          store,
          (record) =>
            advanceMigration(record, "dual-write", "reads-on-new", {
              file: "t",
              replicas,
            }).record,
        ),
      ).rejects.toMatchObject({
        name: "LiveMigrationError",
        problem: {
          code: "refused",
          refusal: {
            reason: "replicas-behind",
            phase: "dual-write",
            revision: 1,
            live: 3,
            behind: [
              expect.objectContaining({ replica: "r1", report: expect.objectContaining({ revision: 0 }) }),
              expect.objectContaining({
                replica: "r3",
                report: expect.objectContaining({ revision: 1, applied: false }),
              }),
            ],
          },
        },
      });

      // A replica that left gracefully is not waited for.
      await registries[0]!.leave();
      replicas = await followingReplicas(store);
      expect(replicasBehind(moved, replicas).map((r) => r.replica)).toEqual(["r3"]);
    } finally {
      for (const registry of registries) await registry.leave();
    }
  });

  it("two writers of the record never both win: each update sees the other's", async () => {
    const store = new MemoryStore();
    await updateTableRecord(store, () => begun);
    await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        updateTableRecord(store, (record) => ({
          ...record!,
          history: [...record!.history, { revision: i, from: "single", to: "single", at: "x" }],
        })),
      ),
    );
    expect((await readTableRecord(store))?.history).toHaveLength(8);
  });
});
