import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { compileSchema, FieldValueError, QueryError } from "../keys/index.js";
import type { FieldValues, Query, SchemaSpec } from "../keys/types.js";
import { BigtableStore } from "../store/bigtable/bigtable.js";
import { EmbeddedStore } from "../store/embedded/embedded.js";
import { MemoryStore } from "../store/memory/memory.js";
import type { KeyRange, Store, StoreReadOptions, StoreRow } from "../store/store.js";
import { BucketReadError } from "./bucket-reader.js";
import { bucketShare } from "./bucket-share.js";
import { LatestQueryError } from "./latest-query.js";
import { ReadDeadlineError, SaltedTable } from "./salted-table.js";
import { SchemaMismatchError } from "./schema-guard.js";
import { ScanReusedError } from "./table-scan.js";

const METRICS = ["cpu", "disk", "mem"];

function fleetSpec(buckets: number | undefined, saltFields = ["device"]): SchemaSpec {
  return {
    version: 1,
    name: "fleet",
    layout: "text",
    separator: "#",
    segments: [
      { field: "device", codec: { type: "string" } },
      { field: "ts", codec: { type: "timestamp", unit: "ms", reverse: true } },
      { field: "metric", codec: { type: "enum", values: METRICS } },
    ],
    ...(buckets === undefined ? {} : { salt: { buckets, fields: saltFields } }),
  };
}

const rowArb = fc.record({
  device: fc.constantFrom("d1", "d2", "d10", "d3", "dx", "e"),
  ts: fc.integer({ min: 1_700_000_000_000, max: 1_700_000_000_050 }),
  metric: fc.constantFrom(...METRICS),
});

/** A prefix of the fields bound by equality, maybe a range on the next, maybe a limit. */
const queryArb = fc
  .record({
    bound: fc.integer({ min: 0, max: 2 }),
    device: fc.constantFrom("d1", "d2", "d10", "e"),
    ts: fc.integer({ min: 1_700_000_000_000, max: 1_700_000_000_050 }),
    range: fc.option(
      fc.record({
        from: fc.integer({ min: 1_700_000_000_000, max: 1_700_000_000_050 }),
        span: fc.integer({ min: 0, max: 30 }),
      }),
      { nil: undefined },
    ),
    limit: fc.option(fc.integer({ min: 1, max: 20 }), { nil: undefined }),
  })
  .map(({ bound, device, ts, range, limit }): Query => {
    const eq: FieldValues = bound >= 1 ? { device } : {};
    if (bound >= 2) eq.ts = ts;
    const query: Query = { eq };
    if (bound === 1 && range) query.range = { field: "ts", gte: range.from, lte: range.from + range.span };
    if (limit !== undefined) query.limit = limit;
    return query;
  });

async function tableWith(store: Store, spec: SchemaSpec, rows: FieldValues[]): Promise<SaltedTable> {
  const table = await SaltedTable.open(store, compileSchema(spec), { create: true, pageSize: 3 });
  const { failed } = await table.putMany(
    rows.map((values) => ({ values, cells: { v: JSON.stringify(values) } })),
  );
  expect(failed).toEqual([]);
  return table;
}

const valuesOf = async (table: SaltedTable, query: Query) =>
  (await table.scan(query).toArray()).map((row) => row.cells.get("v")!.toString());

/** The most rows a limit-bound read may scan (all rows decodable): see TableScan's bucket readers. */
const scannedBound = (limit: number, buckets: number) => 2 * limit + buckets * bucketShare(limit, buckets);

/**
 * The same rows in a salted and an unsalted table answer every query identically, and a read with
 * a limit scans no more than its bound.
 */
function scatterGatherMatchesUnsalted(open: () => Promise<Store>, numRuns: number) {
  return fc.assert(
    fc.asyncProperty(
      fc.array(rowArb, { maxLength: 60 }),
      fc.array(queryArb, { minLength: 1, maxLength: 5 }),
      fc.constantFrom(1, 4, 16),
      async (rows, queries, buckets) => {
        const salted = await tableWith(await open(), fleetSpec(buckets), rows);
        const plain = await tableWith(await open(), fleetSpec(undefined), rows);
        try {
          for (const query of queries) {
            const scan = salted.scan(query);
            const values = (await scan.toArray()).map((row) => row.cells.get("v")!.toString());
            expect(values).toEqual(await valuesOf(plain, query));
            if (query.limit !== undefined) {
              const { rowsScanned, plan } = scan.report;
              expect(rowsScanned).toBeLessThanOrEqual(scannedBound(query.limit, plan.fanout));
            }
          }
        } finally {
          await salted.store.close();
          await plain.store.close();
        }
      },
    ),
    { numRuns },
  );
}

describe("SaltedTable scatter-gather", () => {
  it("answers every query as an unsalted copy does (memory store)", async () => {
    await scatterGatherMatchesUnsalted(async () => new MemoryStore(), 60);
  });

  it("answers every query as an unsalted copy does (embedded store)", async () => {
    const directory = await mkdtemp(join(tmpdir(), "keyspread-table-"));
    let tables = 0;
    try {
      await scatterGatherMatchesUnsalted(() => EmbeddedStore.open({ table: `t${tables++}`, directory }), 15);
    } finally {
      await rm(directory, { recursive: true, force: true });
    }
  });

  it("answers every query as an unsalted copy does (Bigtable emulator)", async () => {
    let tables = 0;
    await scatterGatherMatchesUnsalted(
      () => BigtableStore.createTable({ tableId: `sg${process.pid}_${Date.now().toString(36)}_${tables++}` }),
      10,
    );
  });

  it("reads one bucket when the salt fields are bound, every bucket otherwise", async () => {
    const table = await tableWith(new MemoryStore(), fleetSpec(16), [{ device: "d1", ts: 1, metric: "cpu" }]);
    expect(table.explain({ eq: { device: "d1" } }).fanout).toBe(1);
    expect(table.explain({}).fanout).toBe(16);
  });

  it("reports rows scanned, returned and read amplification", async () => {
    const rows = Array.from({ length: 40 }, (_, i) => ({ device: `d${i % 8}`, ts: i, metric: "cpu" }));
    const table = await tableWith(new MemoryStore(), fleetSpec(8), rows);
    const scan = table.scan({ limit: 5 });
    expect(await scan.toArray()).toHaveLength(5);
    expect(scan.report.rowsReturned).toBe(5);
    expect(scan.report.plan.fanout).toBe(8);
    // Each bucket pushes the limit down, so no bucket scans more than 5 rows.
    expect(scan.report.rowsScanned).toBeLessThanOrEqual(8 * 5);
    expect(scan.report.readAmplification).toBe(scan.report.rowsScanned / 5);
  });
});

describe("SaltedTable latest", () => {
  const rows = Array.from({ length: 30 }, (_, i) => ({
    device: i % 2 ? "a" : "b",
    ts: 1000 + i,
    metric: "cpu",
  }));

  it("returns the newest n rows of one entity, newest first", async () => {
    const table = await tableWith(new MemoryStore(), fleetSpec(4), rows);
    const latest = await table.latest({ eq: { device: "a" } }, 3);
    expect(latest.map((row) => Number(row.values.ts))).toEqual([1029, 1027, 1025]);
  });

  it("merges the newest across buckets when the salt covers the timestamp too", async () => {
    const table = await tableWith(new MemoryStore(), fleetSpec(8, ["device", "ts"]), rows);
    expect(table.explain({ eq: { device: "a" } }).fanout).toBe(8);
    const latest = await table.latest({ eq: { device: "a" } }, 4);
    expect(latest.map((row) => Number(row.values.ts))).toEqual([1029, 1027, 1025, 1023]);
  });

  it("refuses a schema whose next field is not a reverse timestamp", async () => {
    const table = await tableWith(new MemoryStore(), fleetSpec(4), rows);
    const refused = await table.latest({ eq: { device: "a", ts: 1 } }, 3).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(LatestQueryError);
    expect(refused).toBeInstanceOf(QueryError);
    expect(refused).toMatchObject({
      name: "LatestQueryError",
      field: "metric",
      codec: "enum",
      expected: "a reverse timestamp",
    });
  });

  it("names a misspelt field before asking for a reverse timestamp", async () => {
    const table = await tableWith(new MemoryStore(), fleetSpec(4), rows);
    const refused = await table.latest({ eq: { device: "a", metrik: "cpu" } }, 3).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(FieldValueError);
    expect(refused).toMatchObject({ field: "metrik" });
  });

  it("serves repeats from the cache for its TTL", async () => {
    const store = new MemoryStore();
    await tableWith(store, fleetSpec(4), rows);
    const table = await SaltedTable.open(store, compileSchema(fleetSpec(4)), {
      latestCache: { ttlMs: 60_000 },
    });
    const before = await table.latest({ eq: { device: "a" } }, 1);
    await table.put({ device: "a", ts: 5000, metric: "cpu" }, { v: "new" });
    expect(await table.latest({ eq: { device: "a" } }, 1)).toEqual(before);
    expect((await table.latest({ eq: { device: "a" } }, 2))[0]!.values.ts).not.toEqual(before[0]!.values.ts);
  });
});

/** The salting guide's read: every bucket's range whole, in turn, then sorted; the first `n`. */
async function sequentialLatest(table: SaltedTable, device: string, n: number): Promise<StoreRow[]> {
  const rows: StoreRow[] = [];
  for (const range of table.explain({ eq: { device } }).ranges) {
    for await (const row of table.store.read([range])) rows.push(row);
  }
  const salt = table.schema.saltPrefixLength;
  rows.sort((a, b) => Buffer.compare(a.key.subarray(salt), b.key.subarray(salt)));
  return rows.slice(0, n);
}

describe("SaltedTable limit-bound reads over many buckets", () => {
  // The salt hashes the timestamp too, so one device's rows spread over every bucket.
  const spread = (buckets: number) => fleetSpec(buckets, ["device", "ts"]);

  it("equal a sequential merge, scan within the bound, and take one round when each bucket's share covers its part", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.uniqueArray(fc.integer({ min: 0, max: 5000 }), { maxLength: 400 }),
        fc.constantFrom(1, 4, 16, 32),
        fc.integer({ min: 1, max: 150 }),
        fc.integer({ min: 1, max: 300 }),
        async (times, buckets, n, pageSize) => {
          const store = new MemoryStore();
          const rows = times.map((ts) => ({ device: "d1", ts, metric: "cpu" }));
          await tableWith(store, spread(buckets), rows);
          const table = await SaltedTable.open(store, compileSchema(spread(buckets)), { pageSize });
          const scan = table.scan({ eq: { device: "d1" }, limit: n });
          const got = await scan.toArray();
          const expected = await sequentialLatest(table, "d1", n);
          expect(got.map((row) => row.key.toString("hex"))).toEqual(
            expected.map((row) => row.key.toString("hex")),
          );

          const share = bucketShare(n, buckets);
          expect(scan.report.rowsScanned).toBeLessThanOrEqual(scannedBound(n, buckets));
          const held = new Map<number, number>();
          const given = new Map<number, number>();
          for (const ts of times) {
            const bucket = table.schema.bucketOf({ device: "d1", ts });
            held.set(bucket, (held.get(bucket) ?? 0) + 1);
          }
          for (const row of got) given.set(row.bucket, (given.get(row.bucket) ?? 0) + 1);
          // A bucket needs no second read when its first read ends its range or outlasts its part of the answer.
          const oneRound = [...held].every(
            ([bucket, count]) => count < share || (given.get(bucket) ?? 0) < share,
          );
          if (oneRound) expect(scan.report.rounds).toBe(1);
        },
      ),
      { numRuns: 80 },
    );
  });

  it("reads latest-100 over 16 buckets in one round of 16 reads of 16 rows", async () => {
    const rows = Array.from({ length: 400 }, (_, i) => ({ device: "d1", ts: 1000 + i, metric: "cpu" }));
    const store = new MemoryStore();
    await tableWith(store, spread(16), rows);
    // The default page size (256) takes each read whole.
    const table = await SaltedTable.open(store, compileSchema(spread(16)));
    const scan = table.scan({ eq: { device: "d1" }, limit: 100 });
    expect(await scan.toArray()).toHaveLength(100);
    // Each bucket's one read: 16 rows, or all it holds of the device's 400 when that is fewer.
    const held = new Array<number>(16).fill(0);
    for (const row of rows) held[table.schema.bucketOf(row)]!++;
    const firstReads = held.reduce((sum, count) => sum + Math.min(count, 16), 0);
    expect(scan.report).toMatchObject({ rounds: 1, rowsScanned: firstReads, rowsReturned: 100 });
  });

  it("reads a bucket holding the whole answer in reads that double, not one share at a time", async () => {
    // Salted by device only, so an unbound limit-100 read finds every row in one of 16 buckets.
    const rows = Array.from({ length: 500 }, (_, i) => ({ device: "d1", ts: 1000 + i, metric: "cpu" }));
    const store = new MemoryStore();
    await tableWith(store, fleetSpec(16), rows);
    const table = await SaltedTable.open(store, compileSchema(fleetSpec(16)));
    const scan = table.scan({ limit: 100 });
    expect(await scan.toArray()).toHaveLength(100);
    // Reads of 16, 16, 32 and the 36 rows still wanted; the 15 empty buckets take one read each.
    expect(scan.report).toMatchObject({ rounds: 4, rowsScanned: 100 });
  });
});

describe("SaltedTable failures", () => {
  const rows = Array.from({ length: 50 }, (_, i) => ({ device: `d${i % 5}`, ts: i, metric: "mem" }));

  it("resumes a bucket stream that fails mid-way, losing and repeating nothing", async () => {
    const store = new MemoryStore();
    const table = await tableWith(store, fleetSpec(4), rows);
    const expected = await valuesOf(table, {});
    store.faults = { failRead: { afterRows: 2, streams: 3 } };
    const scan = table.scan({});
    const got = (await scan.toArray()).map((row) => row.cells.get("v")!.toString());
    expect(got).toEqual(expected);
    expect(scan.report.retries).toBe(3);
  });

  it("fails clearly when a bucket keeps failing, or flags a partial result when allowed", async () => {
    const store = new MemoryStore();
    const table = await tableWith(store, fleetSpec(4), rows);
    // Streams that fail before delivering anything make no progress, so retries run out.
    store.faults = { failRead: { afterRows: 0 } };
    await expect(table.scan({}).toArray()).rejects.toBeInstanceOf(BucketReadError);
    const partial = table.scan({}, { allowPartial: true });
    await partial.toArray();
    expect(partial.report.partial).toBe(true);
    expect(partial.report.failedBuckets.length).toBeGreaterThan(0);
  });

  it("reports exactly the rows of a batch that failed, and writes the others", async () => {
    const store = new MemoryStore();
    const table = await tableWith(store, fleetSpec(4), []);
    const schema = compileSchema(fleetSpec(4));
    store.faults = {
      failWrite: (key) => (schema.decode(key).values.device === "d3" ? "injected" : undefined),
    };
    const batch = rows.slice(0, 10).map((values) => ({ values, cells: { v: "x" } }));
    const { failed } = await table.putMany(batch);
    expect(failed.map((f) => f.index)).toEqual([3, 8]);
    expect(failed[0]!.values).toEqual(rows[3]);
    store.faults = {};
    expect(await table.scan({}).toArray()).toHaveLength(8);
  });

  it("refuses a whole batch naming the bad row before writing any of it", async () => {
    const store = new MemoryStore();
    const table = await tableWith(store, fleetSpec(4), []);
    const batch = [
      { values: { device: "ok", ts: 1, metric: "cpu" }, cells: { v: "x" } },
      { values: { device: "bad", ts: 1, metric: "gpu" }, cells: { v: "x" } },
    ];
    await expect(table.putMany(batch)).rejects.toThrow(/row 1/);
    expect(await table.scan({}).toArray()).toEqual([]);
  });

  it("refuses to open a table written with another schema, saying what differs", async () => {
    const store = new MemoryStore();
    await tableWith(store, fleetSpec(100), []);
    const opening = SaltedTable.open(store, compileSchema(fleetSpec(50)));
    await expect(opening).rejects.toBeInstanceOf(SchemaMismatchError);
    await expect(opening).rejects.toMatchObject({
      differences: [{ path: "salt.buckets", table: 100, schema: 50 }],
    });
  });

  it("honours a deadline", async () => {
    const table = await tableWith(new SlowStore(new MemoryStore(), 50), fleetSpec(4), rows);
    await expect(table.scan({}, { deadlineMs: 20 }).toArray()).rejects.toBeInstanceOf(ReadDeadlineError);
  });

  it("caps the bucket streams read at once", async () => {
    const store = new SlowStore(new MemoryStore(), 2);
    const table = await SaltedTable.open(store, compileSchema(fleetSpec(16)), {
      create: true,
      concurrency: 3,
    });
    await table.putMany(rows.map((values) => ({ values, cells: { v: "x" } })));
    // A limit-bound read fans out a store read per bucket; a bounded one is one store read.
    expect(await table.scan({ limit: 50 }).toArray()).toHaveLength(50);
    expect(store.maxInFlight).toBeLessThanOrEqual(3);
    expect(store.maxInFlight).toBeGreaterThan(1);
    store.maxInFlight = 0;
    expect(await table.scan({}).toArray()).toHaveLength(50);
    expect(store.maxInFlight).toBe(1);
  });
});

describe("SaltedTable edge cases", () => {
  const rows = Array.from({ length: 20 }, (_, i) => ({ device: `d${i % 4}`, ts: i, metric: "cpu" }));

  it("answers a limit of 0 with nothing, at once", async () => {
    const table = await tableWith(new MemoryStore(), fleetSpec(4), rows);
    expect(await table.scan({ limit: 0 }).toArray()).toEqual([]);
    expect(await table.latest({ eq: { device: "d1" } }, 0)).toEqual([]);
  });

  it("refuses page sizes and concurrency below 1", async () => {
    await expect(
      SaltedTable.open(new MemoryStore(), compileSchema(fleetSpec(4)), { pageSize: 0 }),
    ).rejects.toThrow(expect.objectContaining({ name: "TableOptionError", option: "pageSize", value: 0 }));
  });

  it("stops at once when the reader stops, without waiting for fetches in flight", async () => {
    const store = new SlowStore(new MemoryStore(), 1_000);
    await tableWith(store, fleetSpec(4), rows);
    const table = await SaltedTable.open(store, compileSchema(fleetSpec(4)), { pageSize: 1 });
    const started = performance.now();
    for await (const _ of table.scan({ eq: { device: "d1" } })) break;
    // The first row takes 1 s; the next page is already being fetched and must not be waited for.
    expect(performance.now() - started).toBeLessThan(1_900);
  });

  it("reads a scan once", async () => {
    const table = await tableWith(new MemoryStore(), fleetSpec(4), rows);
    const scan = table.scan({ limit: 5 });
    await scan.toArray();
    await expect(scan.toArray()).rejects.toBeInstanceOf(ScanReusedError);
  });

  it("never caches a partial latest-N for callers who did not allow one", async () => {
    const store = new MemoryStore();
    await tableWith(store, fleetSpec(4, ["device", "ts"]), rows);
    const table = await SaltedTable.open(store, compileSchema(fleetSpec(4, ["device", "ts"])), {
      latestCache: { ttlMs: 60_000 },
    });
    store.faults = { failRead: { afterRows: 0 } };
    const partial = await table.latest({ eq: { device: "d1" } }, 10, { allowPartial: true });
    store.faults = {};
    expect((await table.latest({ eq: { device: "d1" } }, 10)).length).toBeGreaterThan(partial.length);
  });

  it("lets a deadline end a read even when partial results are allowed", async () => {
    const table = await tableWith(new SlowStore(new MemoryStore(), 50), fleetSpec(4), rows);
    await expect(table.scan({}, { deadlineMs: 20, allowPartial: true }).toArray()).rejects.toBeInstanceOf(
      ReadDeadlineError,
    );
  });
});

/** Delays every row a store returns, and counts reads in flight. */
class SlowStore implements Store {
  readonly name = "slow";
  inFlight = 0;
  maxInFlight = 0;
  constructor(
    private readonly inner: Store,
    private readonly delayMs: number,
  ) {}
  write: Store["write"] = (mutations) => this.inner.write(mutations);
  checkAndMutate: Store["checkAndMutate"] = (mutation, condition) =>
    this.inner.checkAndMutate(mutation, condition);
  get: Store["get"] = (key) => this.inner.get(key);
  sampleKeys: Store["sampleKeys"] = (count) => this.inner.sampleKeys(count);
  close: Store["close"] = () => this.inner.close();
  async *read(ranges: readonly KeyRange[], options?: StoreReadOptions): AsyncIterable<StoreRow> {
    for await (const row of this.inner.read(ranges, options)) {
      this.inFlight++;
      this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
      try {
        await new Promise((resolve) => setTimeout(resolve, this.delayMs));
        options?.signal?.throwIfAborted();
      } finally {
        this.inFlight--;
      }
      yield row;
    }
  }
}
