import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { openStore, type StoreKind } from "./open.js";

describe("openStore", () => {
  it("opens each kind by name", async () => {
    const directory = await mkdtemp(join(tmpdir(), "keyspread-open-"));
    const table = `open_${process.pid}_${Date.now().toString(36)}`;
    const names = [];
    for (const kind of ["memory", "embedded", "bigtable"] as const) {
      const store = await openStore(kind, { table, directory, create: true });
      names.push(store.name.split(":")[0]);
      await store.close();
    }
    expect(names).toEqual(["memory", "embedded", "bigtable"]);
    await rm(directory, { recursive: true, force: true });
  });

  it("rejects an unknown kind clearly", async () => {
    await expect(openStore("redis" as StoreKind, { table: "t" })).rejects.toThrow(
      'store is "redis"; allowed: memory, embedded, bigtable',
    );
  });
});
