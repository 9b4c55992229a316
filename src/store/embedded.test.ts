import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ClassicLevel } from "classic-level";
import { afterAll, describe, expect, it, vi } from "vitest";
import { EmbeddedStore } from "./embedded.js";
import type { Store } from "./store.js";
import { describeStoreBehaviour } from "./store.testsuite.js";

const directory = await mkdtemp(join(tmpdir(), "keyspread-embedded-"));
afterAll(() => rm(directory, { recursive: true, force: true }));

let tables = 0;
describeStoreBehaviour("embedded", () => EmbeddedStore.open({ directory, table: `t${tables++}` }), {
  reopen: async (store: Store) => {
    const { location } = store as EmbeddedStore;
    await store.close();
    return EmbeddedStore.open({ directory, table: location.split("/").pop()! });
  },
});

describe("EmbeddedStore", () => {
  it("names its location and rejects table names that are not plain", async () => {
    const store = await EmbeddedStore.open({ directory, table: "named" });
    expect(store.name).toBe(`embedded:${join(directory, "named")}`);
    await store.close();
    await expect(EmbeddedStore.open({ directory, table: "../escape" })).rejects.toThrow(/not a valid name/);
  });

  it("refuses a missing table when it must exist, creating nothing", async () => {
    const empty = await mkdtemp(join(tmpdir(), "keyspread-missing-"));
    await expect(EmbeddedStore.open({ directory: empty, table: "typo", mustExist: true })).rejects.toThrow(
      /no such table: embedded store .*typo does not exist/,
    );
    expect(await readdir(empty)).toEqual([]);
  });

  it("says clearly when the table is already open", async () => {
    const store = await EmbeddedStore.open({ directory, table: "locked" });
    await expect(EmbeddedStore.open({ directory, table: "locked" })).rejects.toThrow(/open elsewhere/);
    await store.close();
  });

  it("reports every mutation of a batch the engine refused, none dropped", async () => {
    const store = await EmbeddedStore.open({ directory, table: "refused" });
    await store.close();
    const key = (i: number) => Buffer.from(`k${i}`);
    const batch = [0, 1, 2].map((i) => ({
      type: "put" as const,
      key: key(i),
      cells: new Map([["v", key(i)]]),
    }));
    const { failed } = await store.write(batch);
    expect(failed.map((failure) => failure.index)).toEqual([0, 1, 2]);
    expect(failed[0]?.reason).toMatch(/embedded:.*not open/i);
  });

  it("syncs LevelDB's log for a durable write, and only then", async () => {
    const store = await EmbeddedStore.open({ directory, table: "durable" });
    const syncs: unknown[] = [];
    const batch = vi.spyOn(ClassicLevel.prototype, "batch");
    batch.mockImplementation(function (this: ClassicLevel<Buffer, Buffer>, ...args: unknown[]) {
      const real = Object.getPrototypeOf(ClassicLevel.prototype).batch.apply(this, args);
      const write = real.write.bind(real);
      real.write = (options?: { sync?: boolean }) => {
        syncs.push(options?.sync ?? false);
        return write(options);
      };
      return real;
    } as never);
    try {
      const put = (key: string) => [
        { type: "put" as const, key: Buffer.from(key), cells: new Map([["v", Buffer.from("1")]]) },
      ];
      await store.write(put("a"));
      await store.write(put("b"), { durable: true });
    } finally {
      batch.mockRestore();
    }
    expect(syncs).toEqual([false, true]);
    expect((await store.get(Buffer.from("b")))?.cells.get("v")?.toString()).toBe("1");
    await store.close();
  });
});
