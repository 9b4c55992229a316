import { describe, expect, it } from "vitest";
import { MemoryStore } from "../../store/memory/memory.js";
import { advanceReplicas } from "./advance-replicas.js";
import type { FollowingReplica } from "./migration-advance.js";
import type { MigrationRecord, ServiceStatus } from "./migration-record.js";
import { replicasStanding } from "./replicas-summary.js";
import { readTableRecord, updateTableRecord } from "./table-migration-record.js";

const migration = "bigtable:p/i/old";
const table = (address: string) => ({ address, spec: {}, fingerprint: `fp-${address}` });
const begun: MigrationRecord = {
  format: "keyspread-migration/1",
  old: table("bigtable:p/i/old"),
  new: table("bigtable:p/i/new"),
  phase: "single",
  revision: 0,
  history: [],
};
const report = (revision: number, applied = true): ServiceStatus => ({
  pid: 1,
  host: "h",
  wal: "/wal",
  revision,
  phase: revision === 0 ? "single" : "dual-write",
  applied,
  completeBelow: 10,
  updatedAt: "2026-01-01T00:00:00.000Z",
});
const replica = (id: string, status?: ServiceStatus): FollowingReplica => ({
  replica: id,
  host: "h",
  pid: 1,
  ...(status ? { report: status } : {}),
});

async function tableWith(record: MigrationRecord): Promise<MemoryStore> {
  const store = new MemoryStore();
  await updateTableRecord(store, () => record);
  return store;
}

describe("advanceReplicas", () => {
  it("refuses a step while a live replica has not applied the current phase, naming it", async () => {
    const store = await tableWith(begun);
    const behind = replica("r2");
    const followingReplicas = async () => [replica("r1", report(0)), behind];
    const step = { store, migration, from: "single", to: "dual-write", waitSeconds: 0 } as const;
    await expect(advanceReplicas({ ...step, followingReplicas })).rejects.toMatchObject({
      code: "refused",
      problem: {
        refusal: { reason: "replicas-behind", phase: "single", revision: 0, live: 2, behind: [behind] },
      },
    });
    expect(await readTableRecord(store)).toEqual(begun);
    expect(await replicasStanding(store, migration, followingReplicas)).toMatchObject({
      phase: "single",
      applied: false,
      behind: ["r2"],
    });
  });

  it("moves once every live replica applied the phase, and waits until each applied the next", async () => {
    const store = await tableWith(begun);
    let applied = 0;
    // Each poll, the replicas report the new revision applied after the second look.
    const followingReplicas = async () => {
      const revision = applied++ < 2 ? 0 : 1;
      return [replica("r1", report(revision)), replica("r2", report(revision))];
    };
    const step = { store, migration, from: "single", to: "dual-write", waitSeconds: 30 } as const;
    const moved = await advanceReplicas({ ...step, followingReplicas });
    expect(moved).toMatchObject({ already: false, record: { phase: "dual-write", revision: 1 } });
    expect(moved.live.map(({ report }) => report?.revision)).toEqual([1, 1]);
    const again = await advanceReplicas({ ...step, waitSeconds: 0, followingReplicas });
    expect(again).toMatchObject({ already: true, record: { revision: 1 } });
  });

  it("fails with the replicas behind when they have not applied the step in time", async () => {
    const store = await tableWith(begun);
    const stuck = replica("r2", report(0));
    const followingReplicas = async () => [replica("r1", report(0)), stuck];
    const step = { store, migration, from: "single", to: "dual-write", waitSeconds: 1 } as const;
    await expect(advanceReplicas({ ...step, followingReplicas })).rejects.toMatchObject({
      code: "replicas-not-applied",
      problem: {
        phase: "dual-write",
        revision: 1,
        seconds: 1,
        live: 2,
        behind: [replica("r1", report(0)), stuck],
      },
    });
  });
});
