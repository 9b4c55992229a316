import { Bigtable } from "@google-cloud/bigtable";
import { describe, expect, it } from "vitest";
import { describeStoreBehaviour } from "../../entry/store-testing.js";
import { RetryableStoreError, type StoreRow } from "../store.js";
import { MAX_INITIAL_SPLITS } from "../validate.js";
import { BigtableStore } from "./bigtable.js";
import { createTableRequest, requestsOn, routingOn } from "./emulator-requests.testsuite.js";

if (!process.env.BIGTABLE_EMULATOR_HOST) {
  throw new Error(
    "BIGTABLE_EMULATOR_HOST is unset: start the emulator with `bash scripts/emulator.sh start`",
  );
}

let tables = 0;
const freshTableId = () => `t${process.pid}_${Date.now().toString(36)}_${tables++}`;

describeStoreBehaviour(
  { describe, it, expect },
  "bigtable (emulator)",
  () => BigtableStore.createTable({ tableId: freshTableId() }),
  {
    // A table created with family `m` but written through family `x`: every cell is refused.
    openFailingWrites: async () => {
      const tableId = freshTableId();
      await (await BigtableStore.createTable({ tableId })).close();
      return BigtableStore.open({ tableId, family: "x" });
    },
    failingWritesAreAll: true,
  },
);

describe("BigtableStore", () => {
  it("creates the table with a max-age rule and names itself", async () => {
    const tableId = freshTableId();
    const store = await BigtableStore.createTable({ tableId, maxAgeSeconds: 30 * 86_400 });
    expect(store.name).toBe(`bigtable:keyspread/keyspread/${tableId}`);
    const admin = new Bigtable({ projectId: "keyspread", metricsEnabled: false });
    const [metadata] = await admin.instance("keyspread").table(tableId).getMetadata();
    expect(JSON.parse(JSON.stringify(metadata.columnFamilies?.m?.gcRule))).toMatchObject({
      union: { rules: [{ maxAge: { seconds: "2592000" } }, { maxNumVersions: 1 }] },
    });
    await admin.close();
    await expect(BigtableStore.createTable({ tableId })).rejects.toThrow(
      expect.objectContaining({ name: "CreateTableError", store: store.name, code: 6, exists: true }),
    );
    await store.close();
    await expect(BigtableStore.createTable({ tableId: "x", maxAgeSeconds: 0 })).rejects.toThrow(
      expect.objectContaining({ name: "StoreArgumentError", field: "maxAgeSeconds", value: 0 }),
    );
  });

  it("creates the table with its family, version and age rules and initial splits (as recorded by the emulator)", async () => {
    const tableId = freshTableId();
    const splits = ["01#", "02#", "03#"].map((key) => Buffer.from(key));
    const store = await BigtableStore.createTable({
      tableId,
      family: "metrics",
      maxVersions: 3,
      maxAgeSeconds: 86_400,
      splits,
    });
    expect(store.family).toBe("metrics");
    await store.close();
    const request = createTableRequest(tableId);
    expect(request.initialSplits?.map((split) => Buffer.from(split.key, "base64").toString())).toEqual([
      "01#",
      "02#",
      "03#",
    ]);
    expect(request.table?.columnFamilies?.metrics?.gcRule).toEqual({
      union: { rules: [{ maxAge: "86400s" }, { maxNumVersions: 3 }] },
    });
    await expect(
      BigtableStore.createTable({ tableId: freshTableId(), splits: [splits[1]!, splits[0]!] }),
    ).rejects.toThrow("splits[1] is not after splits[0]; split keys must ascend");
    await expect(
      BigtableStore.createTable({
        tableId: freshTableId(),
        splits: Array.from({ length: MAX_INITIAL_SPLITS + 1 }, (_, i) => Buffer.from(String(i).padStart(5))),
      }),
    ).rejects.toThrow(expect.objectContaining({ name: "StoreArgumentError", field: "splits", value: 1001 }));
    await expect(BigtableStore.createTable({ tableId: "x", maxVersions: 0 })).rejects.toThrow(
      expect.objectContaining({ name: "StoreArgumentError", field: "maxVersions", value: 0 }),
    );
  });

  it("refuses to create a table that exists, pointing at adopting it", async () => {
    const tableId = freshTableId();
    await (await BigtableStore.createTable({ tableId })).close();
    await expect(BigtableStore.createTable({ tableId })).rejects.toThrow(
      // `exists`: the message then points at `table create --adopt`.
      expect.objectContaining({ name: "CreateTableError", code: 6, exists: true }),
    );
  });

  it("keeps what other code wrote: other families (one named with ours as its prefix), other cells, older versions", async () => {
    const tableId = freshTableId();
    const admin = new Bigtable({ projectId: "keyspread", metricsEnabled: false });
    const instance = admin.instance("keyspread");
    await instance.createTable(tableId, { families: [{ name: "m", rule: { versions: 5 } }, "m_theirs"] });
    const ours = await BigtableStore.open({ tableId });
    const theirs = await BigtableStore.open({ tableId, family: "m_theirs" });
    const key = Buffer.from("dev-1#0001");
    const put = (store: BigtableStore, cells: Record<string, string>, replace?: boolean) =>
      store.write([
        {
          type: "put",
          key,
          cells: new Map(Object.entries(cells).map(([name, value]) => [name, Buffer.from(value)])),
          ...(replace ? { replace } : {}),
        },
      ]);
    const raw = async () => {
      const [row] = await instance.table(tableId).row(key.toString()).get();
      const data = row.data as Record<string, Record<string, { value: string }[]>>;
      return Object.fromEntries(
        Object.entries(data).flatMap(([family, columns]) =>
          Object.entries(columns).map(([column, versions]) => [
            `${family}:${column}`,
            versions.map((v) => v.value),
          ]),
        ),
      );
    };
    await put(theirs, { other: "x" });
    for (const value of ["v1", "v2", "v3"]) {
      await put(ours, { value, [`note-${value}`]: value });
      // The next version gets a later timestamp once the millisecond clock has moved past this write.
      const writtenBy = Date.now();
      await expect.poll(() => Date.now(), { interval: 1 }).toBeGreaterThan(writtenBy);
    }
    await put(ours, { value: "v4" });
    expect(await raw()).toEqual({
      "m_theirs:other": ["x"],
      "m:value": ["v4", "v3", "v2", "v1"],
      "m:note-v1": ["v1"],
      "m:note-v2": ["v2"],
      "m:note-v3": ["v3"],
    });
    const read = (await ours.get(key)) as StoreRow;
    expect(Object.fromEntries([...read.cells].map(([q, v]) => [q, v.toString()]))).toEqual({
      value: "v4",
      "note-v1": "v1",
      "note-v2": "v2",
      "note-v3": "v3",
    });
    await ours.write([{ type: "delete", key, qualifiers: ["note-v1", "note-v2"] }]);
    expect(Object.keys(await raw()).sort()).toEqual(["m:note-v3", "m:value", "m_theirs:other"]);
    await put(ours, { value: "only" }, true);
    expect(await raw()).toEqual({ "m_theirs:other": ["x"], "m:value": ["only"] });
    await ours.write([{ type: "delete", key }]);
    expect(await theirs.get(key)).toBeUndefined();
    await Promise.all([ours.close(), theirs.close(), admin.close()]);
  });

  it("reads cells with their versions when asked, and writes the versions a put names: the newest wins whatever lands last", async () => {
    const store = await BigtableStore.createTable({ tableId: freshTableId(), maxVersions: 3 });
    const key = Buffer.from("row");
    const newer = 1_700_000_002_000_000;
    const older = 1_700_000_001_000_000;
    const put = (value: string, micros: number) =>
      store.write([
        {
          type: "put",
          key,
          cells: new Map([["v", Buffer.from(value)]]),
          timestamps: new Map([["v", micros]]),
        },
      ]);
    await put("new", newer);
    await put("late old copy", older);
    const rows: StoreRow[] = [];
    for await (const found of store.read([{ start: key, end: null }], { cellTimestamps: true }))
      rows.push(found);
    const row = rows[0];
    expect(row!.cells.get("v")!.toString()).toBe("new");
    expect(row!.timestamps).toEqual(new Map([["v", newer]]));
    // Without the option, rows carry no versions.
    expect((await store.get(key))!.timestamps).toBeUndefined();
    await expect(put("bad", -1)).rejects.toThrow(
      expect.objectContaining({ name: "StoreArgumentError", field: "mutations[0].timestamps", value: -1 }),
    );
    await store.close();
  });

  it("sends each request with the app profile its operation names, else the store's", async () => {
    const tableId = freshTableId();
    const store = await BigtableStore.createTable({ tableId, appProfileId: "default-route" });
    const key = Buffer.from("k");
    await store.write([{ type: "put", key, cells: new Map([["v", key]]) }]);
    await store.write([{ type: "put", key, cells: new Map([["v", key]]) }], { appProfile: "writer" });
    await store.get(key, { appProfile: "latest-single-cluster" });
    for await (const _ of store.read([{ start: key, end: null }], { appProfile: "dashboards-multi" }));
    for await (const _ of store.read([{ start: key, end: null }]));
    expect(requestsOn(tableId)).toEqual([
      { method: "MutateRows", appProfileId: "default-route" },
      { method: "MutateRows", appProfileId: "writer" },
      { method: "ReadRows", appProfileId: "latest-single-cluster" },
      { method: "ReadRows", appProfileId: "dashboards-multi" },
      { method: "ReadRows", appProfileId: "default-route" },
    ]);
    await store.close();
  });

  it("sends a read of more ranges than one request carries as consecutive ReadRows requests", async () => {
    const tableId = freshTableId();
    const store = await BigtableStore.createTable({ tableId });
    const key = (i: number) => Buffer.from(String(i).padStart(4, "0"));
    await store.write(
      Array.from({ length: 300 }, (_, i) => ({
        type: "put" as const,
        key: key(i),
        cells: new Map([["v", key(i)]]),
      })),
    );
    const ranges = Array.from({ length: 300 }, (_, i) => ({
      start: key(i),
      end: Buffer.concat([key(i), Buffer.from([0])]),
    }));
    let rows = 0;
    for await (const _ of store.read(ranges)) rows++;
    expect(rows).toBe(300);
    // 128 ranges per request: 128 + 128 + 44. A limit met in the first request sends no more.
    for await (const _ of store.read(ranges, { limit: 5 }));
    expect(requestsOn(tableId).map(({ method }) => method)).toEqual([
      "MutateRows",
      ...Array(3).fill("ReadRows"),
      "ReadRows",
    ]);
    await store.close();
  });

  it("sends reads and writes with the routing header the service routes them by: table and app profile", async () => {
    const tableId = freshTableId();
    const store = await BigtableStore.createTable({ tableId });
    const key = Buffer.from("k");
    await store.write([{ type: "put", key, cells: new Map([["v", key]]) }], { appProfile: "writer" });
    for await (const _ of store.read([{ start: key, end: null }], { appProfile: "reader" }));
    await store.get(key);
    const table_name = `projects/keyspread/instances/keyspread/tables/${tableId}`;
    expect(routingOn(tableId)).toEqual([
      { method: "MutateRows", params: [{ table_name, app_profile_id: "writer" }] },
      { method: "ReadRows", params: [{ table_name, app_profile_id: "reader" }] },
      { method: "ReadRows", params: [{ table_name }] },
    ]);
    await store.close();
  });

  it("fails a read after close with the store's name, as it fails any read", async () => {
    const store = await BigtableStore.createTable({ tableId: freshTableId() });
    await store.close();
    const read = async () => {
      for await (const _ of store.read([{ start: Buffer.from("a"), end: null }]));
    };
    await expect(read()).rejects.toThrow(
      expect.objectContaining({ name: "BigtableCallError", store: store.name, operation: "read" }),
    );
  });

  it("says which setting is missing", async () => {
    await expect(BigtableStore.open({ env: {} })).rejects.toThrow(
      expect.objectContaining({
        name: "MissingBigtableSettingError",
        field: "projectId",
        variable: "KEYSPREAD_BIGTABLE_PROJECT",
      }),
    );
    await expect(BigtableStore.open({ env: { BIGTABLE_EMULATOR_HOST: "h:1" } })).rejects.toThrow(
      expect.objectContaining({ name: "MissingBigtableSettingError", field: "tableId" }),
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
      expect.objectContaining({
        name: "BigtableCallError",
        store: "bigtable:keyspread/keyspread/no_such_table",
        operation: "read",
        status: "NOT_FOUND",
      }),
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
