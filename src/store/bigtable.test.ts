import { Bigtable } from "@google-cloud/bigtable";
import { describe, expect, it } from "vitest";
import { BigtableStore } from "./bigtable.js";
import { RetryableStoreError } from "./store.js";
import { describeStoreBehaviour } from "./store.testsuite.js";

if (!process.env.BIGTABLE_EMULATOR_HOST) {
  throw new Error(
    "BIGTABLE_EMULATOR_HOST is unset: start the emulator with `bash scripts/emulator.sh start`",
  );
}

let tables = 0;
const freshTableId = () => `t${process.pid}_${Date.now().toString(36)}_${tables++}`;

describeStoreBehaviour("bigtable (emulator)", () => BigtableStore.createTable({ tableId: freshTableId() }), {
  // A table created with family `m` but written through family `x`: every cell is refused.
  openFailingWrites: async () => {
    const tableId = freshTableId();
    await (await BigtableStore.createTable({ tableId })).close();
    return BigtableStore.open({ tableId, family: "x" });
  },
  failingWritesAreAll: true,
});

describe("BigtableStore", () => {
  it("creates the table with a max-age rule and names itself", async () => {
    const tableId = freshTableId();
    const store = await BigtableStore.createTable({ tableId, maxAgeSeconds: 30 * 86_400 });
    expect(store.name).toBe(`bigtable:keyspread/keyspread/${tableId}`);
    const admin = new Bigtable({ projectId: "keyspread" });
    const [metadata] = await admin.instance("keyspread").table(tableId).getMetadata();
    expect(JSON.parse(JSON.stringify(metadata.columnFamilies?.m?.gcRule))).toMatchObject({
      union: { rules: [{ maxAge: { seconds: "2592000" } }, { maxNumVersions: 1 }] },
    });
    await admin.close();
    await expect(BigtableStore.createTable({ tableId })).rejects.toThrow(/cannot create .*ALREADY_EXISTS/);
    await store.close();
    await expect(BigtableStore.createTable({ tableId: "x", maxAgeSeconds: 0 })).rejects.toThrow(
      /maxAgeSeconds is 0/,
    );
  });

  it("says which setting is missing", async () => {
    await expect(BigtableStore.open({ env: {} })).rejects.toThrow(
      /projectId is missing: .*KEYSPREAD_BIGTABLE_PROJECT/,
    );
    await expect(BigtableStore.open({ env: { BIGTABLE_EMULATOR_HOST: "h:1" } })).rejects.toThrow(
      /tableId is missing/,
    );
    await expect(BigtableStore.open({ tableId: "t", family: "a.b" })).rejects.toThrow(/family "a.b"/);
    await expect(BigtableStore.open({ tableId: "t", limits: { maxInFlight: 0 } })).rejects.toThrow(
      "limits.maxInFlight is 0; allowed: a positive integer",
    );
  });

  it("fails a read of a missing table with the store's name and the status", async () => {
    const store = await BigtableStore.open({ tableId: "no_such_table" });
    const read = async () => {
      for await (const _ of store.read([{ start: Buffer.from("a"), end: null }]));
    };
    await expect(read()).rejects.toThrow(
      /bigtable:keyspread\/keyspread\/no_such_table: read failed: NOT_FOUND/,
    );
    await store.close();
  });

  it("fails reads retryably and reports every row of a write when the service is unreachable", async () => {
    const store = await BigtableStore.open({
      tableId: "unreachable",
      clientOptions: { apiEndpoint: "127.0.0.1:1" },
      readRetries: 0,
      limits: { maxAttempts: 2, baseDelayMs: 1 },
    });
    const read = async () => {
      for await (const _ of store.read([{ start: Buffer.from("a"), end: null }]));
    };
    await expect(read()).rejects.toBeInstanceOf(RetryableStoreError);
    const batch = ["a", "b"].map((key) => ({
      type: "put" as const,
      key: Buffer.from(key),
      cells: new Map([["v", Buffer.from(key)]]),
    }));
    const { failed } = await store.write(batch);
    expect(failed.map((failure) => failure.index)).toEqual([0, 1]);
    expect(failed[0]?.reason).toMatch(/^UNAVAILABLE: .*\(after 2 attempts\)$/);
    await store.close();
  });
});
