import { mkdtemp, readFile, writeFile } from "node:fs/promises";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { MemoryStore } from "../../store/memory/memory.js";
import { DamagedReplicaId, readOrCreateReplicaId } from "./replica-id.js";
import { REPLICA_ROW_PREFIX, ReplicaIdInUse, ReplicaRegistry } from "./replica-registry.js";

const log = () => {};

describe("readOrCreateReplicaId", () => {
  it("makes an id once and keeps it across restarts; refuses a damaged file naming it", async () => {
    const wal = await mkdtemp(join(tmpdir(), "replica-id-"));
    const first = await readOrCreateReplicaId(wal);
    expect(first).toMatch(/^[0-9a-f]{10}$/);
    expect(await readOrCreateReplicaId(wal)).toBe(first);
    const other = await readOrCreateReplicaId(await mkdtemp(join(tmpdir(), "replica-id-")));
    expect(other).not.toBe(first);
    await writeFile(join(wal, "replica-id"), "a#b\n");
    await expect(readOrCreateReplicaId(wal)).rejects.toThrow(
      expect.objectContaining({ name: DamagedReplicaId.name, path: join(wal, "replica-id"), found: "a#b" }),
    );
  });

  it("gives two processes racing on one new directory the same id", async () => {
    const wal = await mkdtemp(join(tmpdir(), "replica-id-"));
    const ids = await Promise.all(Array.from({ length: 8 }, () => readOrCreateReplicaId(wal)));
    expect(new Set(ids).size).toBe(1);
    expect((await readFile(join(wal, "replica-id"), "utf8")).trim()).toBe(ids[0]);
  });
});

describe("ReplicaRegistry", () => {
  it("refuses an id another live replica holds, naming the holder; takes it over once its lease ran out", async () => {
    const store = new MemoryStore();
    let now = 1_000_000;
    const clock = { now: () => now, leaseMs: 10_000, heartbeatMs: 60_000, log };
    const first = await ReplicaRegistry.join(store, "aaaaaaaaaa", { ...clock, walDirectory: "/var/wal-1" });
    // A copied log directory: same id, another directory (or host).
    const copy = ReplicaRegistry.join(store, "aaaaaaaaaa", { ...clock, walDirectory: "/var/wal-2" });
    await expect(copy).rejects.toBeInstanceOf(ReplicaIdInUse);
    await expect(copy).rejects.toMatchObject({
      replica: "aaaaaaaaaa",
      walDirectory: "/var/wal-2",
      holder: { replica: "aaaaaaaaaa", host: hostname(), pid: process.pid, wal: "/var/wal-1" },
    });
    now += 10_001;
    const second = await ReplicaRegistry.join(store, "aaaaaaaaaa", { ...clock, walDirectory: "/var/wal-2" });
    // The first one's next heartbeat finds its lease taken: it knows it is no longer the holder.
    expect(first.isLost).toBe(false);
    await first.heartbeatNow();
    expect(first.isLost).toBe(true);
    expect(second.isLost).toBe(false);
    await second.leave();
    await first.leave();
  });

  it("lets a restart on the same log directory take its own lease at once (the log's lock proves the old process gone)", async () => {
    const store = new MemoryStore();
    const options = { walDirectory: "/var/wal", heartbeatMs: 60_000, log };
    await ReplicaRegistry.join(store, "bbbbbbbbbb", options);
    // The first process was killed: no leave, its heartbeat is fresh.
    const restarted = await ReplicaRegistry.join(store, "bbbbbbbbbb", options);
    expect(restarted.liveCount()).toBe(1);
    await restarted.leave();
  });

  it("counts the live replicas, drops one that left at once and one that stopped beating after the lease", async () => {
    const store = new MemoryStore();
    let now = 5_000_000;
    const options = (wal: string) => ({
      walDirectory: wal,
      now: () => now,
      leaseMs: 10_000,
      heartbeatMs: 60_000,
      log,
    });
    const a = await ReplicaRegistry.join(store, "a000000000", options("/a"));
    const b = await ReplicaRegistry.join(store, "b000000000", options("/b"));
    const c = await ReplicaRegistry.join(store, "c000000000", options("/c"));
    await a.heartbeatNow();
    expect(a.liveCount()).toBe(3);
    expect(
      a
        .live()
        .map((lease) => lease.replica)
        .sort(),
    ).toEqual(["a000000000", "b000000000", "c000000000"]);
    await b.leave();
    await a.heartbeatNow();
    expect(a.liveCount()).toBe(2);
    // c dies without leaving: counted until its lease runs out.
    now += 10_001;
    await a.heartbeatNow();
    expect(a.live().map((lease) => lease.replica)).toEqual(["a000000000"]);
    // Registry rows live in keyspread's reserved range, after every data row.
    const keys: Buffer[] = [];
    for await (const row of store.read([{ start: Buffer.alloc(0), end: null }])) keys.push(row.key);
    expect(keys.map((key) => key.subarray(0, REPLICA_ROW_PREFIX.length).equals(REPLICA_ROW_PREFIX))).toEqual([
      true,
      true,
      true,
    ]);
    await a.leave();
    await c.leave();
  });
});
