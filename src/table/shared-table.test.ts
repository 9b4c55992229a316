/**
 * A table shared with other code: reads skip (and report) rows the schema cannot decode, or fail
 * naming them when strict; writes change only what they name; legacy salts outside [0, N) are
 * written and warned about; each path routes to its own app profile.
 */
import { describe, expect, it } from "vitest";
import { textWithJavaHash } from "../keys/java-hash.testsuite.js";
import { compileSchema } from "../keys/schema.js";
import type { SchemaSpec } from "../keys/types.js";
import { MemoryStore } from "../store/memory/memory.js";
import type {
  CellCondition,
  KeyRange,
  RoutingOptions,
  Store,
  StoreMutation,
  StoreReadOptions,
} from "../store/store.js";
import type { TableWarning } from "./row-decoder.js";
import { SaltedTable, type SaltedTableOptions, UndecodableRowError } from "./salted-table.js";

const FLEET: SchemaSpec = {
  version: 1,
  name: "fleet",
  layout: "text",
  separator: "#",
  segments: [
    { field: "device", codec: { type: "string" } },
    { field: "ts", codec: { type: "timestamp", unit: "ms", reverse: true } },
  ],
  salt: { buckets: 8, fields: ["device"] },
};
const schema = compileSchema(FLEET);
const T0 = 1_700_000_000_000;

async function fleetTable(options: SaltedTableOptions = {}) {
  const store = new MemoryStore({ name: "shared" });
  const warnings: TableWarning[] = [];
  const table = await SaltedTable.open(store, schema, {
    create: true,
    pageSize: 2,
    onWarning: (warning) => warnings.push(warning),
    ...options,
  });
  const rows = Array.from({ length: 24 }, (_, i) => ({
    values: { device: `d${i % 6}`, ts: T0 + i },
    cells: { v: String(i) },
  }));
  expect((await table.putMany(rows)).failed).toEqual([]);
  return { store, table, warnings };
}

const salt = (bucket: number) => String(bucket).padStart(schema.saltPrefixLength - 1, "0");
/** A device's salt, as the text its keys start with. */
const bucket = (device: string) => salt(schema.bucketOf({ device }));

/** Rows other code wrote inside the buckets' ranges, each sorting before real rows of its bucket. */
function foreignRows(): StoreMutation[] {
  const good = schema.encode({ device: "d1", ts: T0 + 1 }).toString();
  const keys = [
    `${bucket("d1")}#d1#abc`, // a non-numeric timestamp, right before d1's rows
    `${bucket("d1")}#d1#00`, // too short
    `${bucket("d1")}#bad`, // another format
    `${salt((schema.bucketOf({ device: "d1" }) + 1) % 8)}${good.slice(1)}`, // the wrong bucket
  ].map((key) => Buffer.from(key));
  keys.push(Buffer.concat([Buffer.from(`${bucket("d2")}#`), Buffer.from([0x01, 0xff])])); // not text
  return keys.map((key) => ({ type: "put", key, cells: new Map([["cf", Buffer.from("theirs")]]) }));
}

/** The listed undecodable rows of a warning: each key, with its decode problem. */
function listed(warning: TableWarning | undefined) {
  if (warning?.kind !== "undecodable-rows")
    throw new Error(`expected an undecodable-rows warning, got ${warning?.kind}`);
  return warning.first.map(({ key, problem, at }) => ({
    key: Buffer.from(key, "hex"),
    problem,
    at,
  }));
}

describe("rows the schema cannot read", () => {
  it("are skipped, counted in the report and warned about, naming the table and the first keys", async () => {
    const { store, table, warnings } = await fleetTable();
    await store.write(foreignRows());
    const scan = table.scan({});
    const rows = await scan.toArray();
    expect(rows).toHaveLength(24);
    expect(scan.report).toMatchObject({ rowsReturned: 24, rowsScanned: 29, rowsUndecodable: 5 });
    expect(scan.report.undecodable).toHaveLength(5);
    expect(warnings).toHaveLength(1);
    const [warning] = warnings;
    expect(warning).toMatchObject({
      kind: "undecodable-rows",
      table: "memory:shared",
      schema: "fleet",
      count: 5,
    });
    // Each listed with its decode problem (a bounded read meets them in key order, its buckets
    // read in one call).
    expect(listed(warning).slice(0, 2)).toEqual([
      { key: Buffer.from(`${bucket("d1")}#bad`), problem: "unexpected-bytes", at: 5 },
      { key: Buffer.from(`${bucket("d1")}#d1#00`), problem: "bad-field", at: 5 },
    ]);
    // A limit-bound read of every bucket meets them bucket by bucket: next the key that is not text.
    await table.scan({ limit: 1000 }).toArray();
    expect(listed(warnings[1]).slice(0, 2)).toEqual([
      { key: Buffer.from(`${bucket("d1")}#bad`), problem: "unexpected-bytes", at: 5 },
      { key: Buffer.from([...Buffer.from(`${bucket("d2")}#`), 0x01, 0xff]), problem: "bad-field", at: 2 },
    ]);
    expect(rows.map((row) => `${row.values.device}@${Number(row.values.ts) - T0}`)).toEqual(
      Array.from({ length: 24 }, (_, i) => `d${i % 6}@${i}`).sort((a, b) => {
        const [da, ta] = a.split("@");
        const [db, tb] = b.split("@");
        return da! < db! ? -1 : da! > db! ? 1 : Number(tb) - Number(ta);
      }),
    );
  });

  it("do not count toward a limit: latest-1 and limit 1 still return a row", async () => {
    const { store, table, warnings } = await fleetTable();
    await store.write(foreignRows());
    const [newest] = await table.latest({ eq: { device: "d1" } }, 1);
    expect(newest?.values).toEqual({ device: "d1", ts: T0 + 19 });
    expect(await table.latest({ eq: { device: "d1" } }, 4)).toHaveLength(4);
    expect(await table.scan({ limit: 1 }).toArray()).toHaveLength(1);
    // Each read that skipped rows says so; a limited read stops at its rows, before "…#abc".
    expect(warnings.map((w) => w.count)).toEqual([1, 1, expect.any(Number)]);
  });

  it("fail a strict read with the table, the key and the reason — also with allowPartial", async () => {
    const { store, table, warnings } = await fleetTable({ strict: true });
    await store.write(foreignRows());
    const error = await table
      .scan({}, { allowPartial: true })
      .toArray()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UndecodableRowError);
    expect(error).toMatchObject({
      table: "memory:shared",
      schema: "fleet",
      key: expect.any(Buffer),
      problem: expect.any(String),
    });
    expect(warnings).toEqual([]);
    // A read may relax the table's setting, or tighten it.
    expect(await table.scan({}, { strict: false }).toArray()).toHaveLength(24);
    const lenient = await fleetTable();
    await lenient.store.write(foreignRows());
    await expect(lenient.table.latest({ eq: { device: "d1" } }, 1, { strict: true })).rejects.toThrow(
      expect.objectContaining({
        name: "UndecodableRowError",
        key: Buffer.from(`${bucket("d1")}#d1#00`),
        problem: "bad-field",
      }),
    );
  });
});

describe("writes keep what they do not name", () => {
  it("put sets the named cells, replace replaces, delete removes cells or the row", async () => {
    const { table, store } = await fleetTable();
    const values = { device: "d1", ts: T0 + 1 };
    const cells = async () =>
      Object.fromEntries([...((await table.get(values))?.cells ?? [])].map(([q, v]) => [q, v.toString()]));
    await store.write([
      { type: "put", key: schema.encode(values), cells: new Map([["other", Buffer.from("x")]]) },
    ]);
    await table.put(values, { v: "new", w: "2" });
    expect(await cells()).toEqual({ v: "new", w: "2", other: "x" });
    await table.delete(values, { cells: ["w"] });
    expect(await cells()).toEqual({ v: "new", other: "x" });
    await table.putMany([{ values, cells: { only: "1" } }], { replace: true });
    expect(await cells()).toEqual({ only: "1" });
    await table.delete(values);
    expect(await table.get(values)).toBeUndefined();
  });

  it("with a legacy salt, a key outside [0, N) is written as the old tool wrote it and warned about", async () => {
    const legacy = compileSchema({
      version: 1,
      name: "old-phoenix",
      layout: "binary",
      segments: [{ field: "id", codec: { type: "string", raw: true } }],
      salt: { buckets: 10, hash: "phoenix-legacy" },
    });
    const warnings: TableWarning[] = [];
    const table = await SaltedTable.open(new MemoryStore({ name: "legacy" }), legacy, {
      create: true,
      onWarning: (warning) => warnings.push(warning),
    });
    const unlucky = textWithJavaHash(-(2 ** 31));
    await table.putMany([
      { values: { id: "fine" }, cells: { v: "1" } },
      { values: { id: unlucky }, cells: { v: "2" } },
    ]);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatchObject({
      kind: "salt-out-of-range",
      table: "memory:legacy",
      count: 1,
      buckets: 10,
      first: [{ index: 1, bucket: 248 }],
    });
    expect((await table.scan({}).toArray()).map((row) => row.values.id)).toEqual(["fine"]);
    expect((await table.get({ id: unlucky }))?.bucket).toBe(248);
  });
});

/** Records the app profile of every store call. */
class RoutedStore implements Store {
  readonly calls: string[] = [];
  constructor(private readonly inner: Store) {}
  get name() {
    return this.inner.name;
  }
  write(mutations: readonly StoreMutation[], options?: RoutingOptions) {
    this.calls.push(`write:${options?.appProfile ?? "-"}`);
    return this.inner.write(mutations, options);
  }
  checkAndMutate(mutation: StoreMutation, condition: CellCondition, options?: RoutingOptions) {
    this.calls.push(`checkAndMutate:${options?.appProfile ?? "-"}`);
    return this.inner.checkAndMutate(mutation, condition, options);
  }
  get(key: Buffer, options?: RoutingOptions) {
    this.calls.push(`get:${options?.appProfile ?? "-"}`);
    return this.inner.get(key, options);
  }
  read(ranges: readonly KeyRange[], options?: StoreReadOptions) {
    this.calls.push(`read:${options?.appProfile ?? "-"}`);
    return this.inner.read(ranges, options);
  }
  sampleKeys(count: number) {
    return this.inner.sampleKeys(count);
  }
  close() {
    return this.inner.close();
  }
}

describe("app profiles per read path", () => {
  it("routes latest, scans, gets and writes by the table's profiles; an operation's own wins", async () => {
    const store = new RoutedStore(new MemoryStore());
    const table = await SaltedTable.open(store, schema, {
      create: true,
      appProfiles: { latest: "single-cluster", scan: "multi-cluster", write: "ingest" },
    });
    store.calls.length = 0;
    const values = { device: "d1", ts: T0 };
    await table.put(values, { v: "1" });
    await table.latest({ eq: { device: "d1" } }, 5);
    await table.scan({ eq: { device: "d1" } }).toArray();
    await table.get(values);
    await table.latest({ eq: { device: "d1" } }, 5, { appProfile: "override" });
    await table.delete(values, { appProfile: "cleanup" });
    expect(store.calls).toEqual([
      "write:ingest",
      "read:single-cluster",
      "read:multi-cluster",
      "get:-",
      "read:override",
      "write:cleanup",
    ]);
    expect(table.appProfileFor("latest")).toBe("single-cluster");
    await expect(SaltedTable.open(store, schema, { appProfiles: { scan: "no spaces" } })).rejects.toThrow(
      expect.objectContaining({ name: "StoreArgumentError", field: "appProfiles.scan", value: "no spaces" }),
    );
  });
});
