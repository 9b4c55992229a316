import { describe, expect, it } from "vitest";
import { metricsSchema } from "../serve/ingest/points/metrics-schema.js";
import { namesSameTable, parseStoreAddress } from "../store/open/store-address.js";
import { MIGRATIONS } from "./fixtures.testsuite.js";
import { migrationPlan } from "./plan.js";

const { from, to } = MIGRATIONS[1]!;

describe("migrationPlan", () => {
  const plan = migrationPlan({
    from: parseStoreAddress("embedded:./data/scores"),
    to: parseStoreAddress("bigtable:p1/i1/scores-50"),
    fromSchemaFile: "old.yaml",
    toSchemaFile: "new schema.yaml",
    fromSchema: from,
    toSchema: to,
    checkpointFile: "cp.json",
    rowsPerSecond: 5000,
  });

  it("orders the steps: create, dual-write, backfill, validate, reads, writes, delete", () => {
    const steps = [...plan.matchAll(/^(\d)\. (\w+)/gm)].map((m) => `${m[1]} ${m[2]}`);
    expect(steps).toEqual(["1 Create", "2 Turn", "3 Backfill", "4 Validate", "5 Cut", "6 Cut", "7 After"]);
    expect(plan).toMatch(/5\. Cut reads over[\s\S]*6\. Cut writes over/);
  });

  it("prints the exact commands, quoted for the shell, with the schema change", () => {
    expect(plan).toContain("salt.buckets: old 100, new 50");
    expect(plan).toContain(
      "KEYSPREAD_BIGTABLE_PROJECT=p1 KEYSPREAD_BIGTABLE_INSTANCE=i1 keyspread migrate backfill --from embedded:./data/scores --from-schema old.yaml --to bigtable:p1/i1/scores-50 --to-schema 'new schema.yaml' --checkpoint cp.json --rate 5000",
    );
    expect(plan).toContain(
      "keyspread table create --schema 'new schema.yaml' --store bigtable --table scores-50",
    );
    expect(plan).toContain("keyspread migrate validate --from embedded:./data/scores");
    expect(plan).toContain("rm -r ./data/scores");
  });

  it("offers the backfill as an engine's job when both tables are on Bigtable, and only then", () => {
    const onBigtable = migrationPlan({
      from: parseStoreAddress("bigtable:p1/i1/scores"),
      to: parseStoreAddress("bigtable:p1/i1/scores-50"),
      fromSchemaFile: "old.yaml",
      toSchemaFile: "new.yaml",
      fromSchema: from,
      toSchema: to,
      checkpointFile: "cp.json",
    });
    expect(onBigtable).toContain(
      "keyspread migrate job --engine cloud-run|kubernetes --from bigtable:p1/i1/scores --from-schema old.yaml --to bigtable:p1/i1/scores-50 --to-schema new.yaml --image IMAGE --tasks N",
    );
    expect(plan).not.toContain("keyspread migrate job");
  });

  it("with shards: one shard plan, then N backfills and N validations, each with its own shard and checkpoint", () => {
    const sharded = migrationPlan({
      from: parseStoreAddress("bigtable:p1/i1/scores"),
      to: parseStoreAddress("bigtable:p1/i1/scores-50"),
      fromSchemaFile: "old.yaml",
      toSchemaFile: "new.yaml",
      fromSchema: from,
      toSchema: to,
      checkpointFile: ".keyspread/cp.json",
      sharded: { shards: 8, shardsFile: "plan-old.json", targetShardsFile: "plan-new.json" },
    });
    const env = "KEYSPREAD_BIGTABLE_PROJECT=p1 KEYSPREAD_BIGTABLE_INSTANCE=i1 ";
    expect(sharded).toContain(
      `${env}keyspread migrate shards --from bigtable:p1/i1/scores --shards 8 --out plan-old.json`,
    );
    expect(sharded).toContain(
      "--shard K/8 --shards-file plan-old.json --checkpoint .keyspread/cp-shard-K-of-8.json",
    );
    expect(sharded).toContain(
      `${env}keyspread migrate shards --from bigtable:p1/i1/scores-50 --shards 8 --out plan-new.json`,
    );
    expect(sharded).toContain("--shard K/8 --shards-file plan-old.json --to-shards-file plan-new.json");
    expect(sharded).not.toContain("one after another");
    expect(plan).not.toContain("--shard");
  });

  it("with a migration record: the live runbook, every step the command the running service follows", () => {
    const live = (from: string, to: string) =>
      migrationPlan({
        from: parseStoreAddress(from),
        to: parseStoreAddress(to),
        fromSchemaFile: "old.json",
        toSchemaFile: "new.json",
        fromSchema: metricsSchema(1, 2000),
        toSchema: metricsSchema(16, 2000),
        checkpointFile: "cp.json",
        migrationFile: "m.json",
        rowsPerSecond: 500,
      });
    const embedded = live("embedded:./d/metrics", "embedded:./d/metrics-v2");
    const steps = [...embedded.matchAll(/^(\d)\. (\w+)/gm)].map((m) => `${m[1]} ${m[2]}`);
    expect(steps).toEqual([
      "1 Create",
      "2 Record",
      "3 Dual",
      "4 Backfill",
      "5 Validate",
      "6 Cut",
      "7 Cut",
      "8 Done",
      "9 After",
    ]);
    for (const line of [
      "keyspread serve --dir ./d --table metrics --buckets 1 --interval 2000ms --migration m.json",
      "keyspread serve schema --buckets 16 --interval 2000ms > new.json",
      "keyspread table create --schema new.json --store embedded --dir ./d --table metrics-v2",
      "keyspread migrate begin --migration m.json --from embedded:./d/metrics --from-schema old.json --to embedded:./d/metrics-v2 --to-schema new.json",
      "keyspread migrate advance --migration m.json --from single --to dual-write",
      "Rollback: keyspread migrate advance --migration m.json --from dual-write --to single",
      "keyspread migrate backfill --migration m.json --rate 500",
      "keyspread migrate validate --migration m.json",
      "keyspread migrate advance --migration m.json --from dual-write --to reads-on-new",
      "Rollback: keyspread migrate advance --migration m.json --from reads-on-new --to dual-write",
      "keyspread migrate advance --migration m.json --from reads-on-new --to writes-on-new",
      "Rollback: keyspread migrate advance --migration m.json --from writes-on-new --to reads-on-new",
      "keyspread migrate backfill --migration m.json --reverse",
      "keyspread migrate advance --migration m.json --from writes-on-new --to done",
      "rm -r ./d/metrics",
    ])
      expect(embedded).toContain(line);
    expect(embedded).not.toContain("--shard");
    const bigtable = live("bigtable:p/i/metrics", "bigtable:p/i/metrics-v2");
    expect(bigtable).toContain(
      "KEYSPREAD_BIGTABLE_PROJECT=p KEYSPREAD_BIGTABLE_INSTANCE=i keyspread serve --store bigtable --table metrics --buckets 1 --interval 2000ms --migration m.json",
    );
    expect(bigtable).toContain("--shard K/N --checkpoint cp-shard-K-of-N.json --rate 500");
    expect(bigtable).toContain("gcloud bigtable instances tables delete metrics --instance=i --project=p");
  });

  it("refuses schemas whose fields differ", () => {
    expect(() =>
      migrationPlan({
        ...{ from: parseStoreAddress("embedded:a"), to: parseStoreAddress("embedded:b") },
        fromSchemaFile: "a",
        toSchemaFile: "b",
        fromSchema: MIGRATIONS[0]!.from,
        toSchema: to,
        checkpointFile: "c",
      }),
    ).toThrow(
      expect.objectContaining({
        name: "SchemaFieldsError",
        from: MIGRATIONS[0]?.from.spec.name,
        to: to.spec.name,
      }),
    );
  });
});

describe("parseStoreAddress", () => {
  it("reads the embedded and Bigtable forms and names the allowed ones otherwise", () => {
    expect(parseStoreAddress("embedded:fleet")).toEqual({
      kind: "embedded",
      directory: "./.keyspread",
      table: "fleet",
    });
    expect(parseStoreAddress("embedded:/tmp/x/fleet")).toEqual({
      kind: "embedded",
      directory: "/tmp/x",
      table: "fleet",
    });
    expect(parseStoreAddress("bigtable:fleet")).toEqual({ kind: "bigtable", table: "fleet" });
    expect(() => parseStoreAddress("bigtable:a/b")).toThrow(
      expect.objectContaining({ name: "StoreArgumentError", field: "store", value: "bigtable:a/b" }),
    );
    expect(namesSameTable(parseStoreAddress("embedded:./a/t"), parseStoreAddress("embedded:a/t"))).toBe(true);
    expect(namesSameTable(parseStoreAddress("bigtable:t"), parseStoreAddress("embedded:t"))).toBe(false);
    expect(() => parseStoreAddress("memory:x")).toThrow(
      expect.objectContaining({
        name: "StoreArgumentError",
        field: "store",
        value: "memory:x",
        allowed: expect.stringMatching(/^embedded:DIR\/TABLE/),
      }),
    );
  });
});
