/**
 * End-to-end `keyspread diagnose` through the built bin: a Bigtable table on Google's emulator
 * (SampleRowKeys and the row sample are real; the emulator has no instance admin API, so the hot
 * tablets are the fleet incident's recorded answer), and an embedded table with its access log.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { incidentKeySample } from "../../diagnose/gather/incident.testsuite.js";
import { type PlantedProblem, plantedProblems } from "../../diagnose/gather/planted.testsuite.js";
import { parseScenario } from "../../sim/scenario/scenario.js";
import { BigtableStore } from "../../store/bigtable/bigtable.js";
import { EmbeddedStore } from "../../store/embedded/embedded.js";

if (!process.env.BIGTABLE_EMULATOR_HOST)
  throw new Error("BIGTABLE_EMULATOR_HOST is unset: the vitest global setup starts the emulator");

function keyspread(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn("node", ["dist/cli/main.js", ...args], { env: process.env });
    let [stdout, stderr] = ["", ""];
    child.stdout.on("data", (chunk) => (stdout += chunk));
    child.stderr.on("data", (chunk) => (stderr += chunk));
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

/** The JSON a successful run printed (nothing on stderr, exit 0). */
function printedJson(run: { code: number | null; stdout: string; stderr: string }) {
  expect(run.stderr).toBe("");
  expect(run.code).toBe(0);
  return JSON.parse(run.stdout);
}

/** `diagnose` of a Bigtable table with a recorded hot-tablets answer. */
const onRecordedAnswer = (tableId: string, schema: string, hotTablets: string) => [
  "diagnose",
  "--store",
  "bigtable",
  "--table",
  tableId,
  "--schema",
  schema,
  "--hot-tablets",
  hotTablets,
];

const dir = mkdtempSync(join(tmpdir(), "keyspread-diagnose-cli-"));
const SCHEMA = "examples/diagnose/fleet-incident.schema.yaml";
const cells = new Map([["v", Buffer.alloc(64, 1)]]);
const puts = (keys: Buffer[]) => keys.map((key) => ({ type: "put" as const, key, cells }));

describe("keyspread diagnose --store bigtable (emulator, recorded hot tablets)", () => {
  it("decodes the incident's hot ranges, calls it a wide hot range, and writes a scenario the lab reads", async () => {
    const tableId = `diagcli${process.pid}_${Date.now().toString(36)}`;
    const store = await BigtableStore.createTable({ tableId });
    expect((await store.write(puts(incidentKeySample(3000)))).failed).toEqual([]);
    await store.close();
    const recorded = readFileSync("examples/diagnose/fleet-incident.hot-tablets.json", "utf8").replaceAll(
      "tables/device-metrics",
      `tables/${tableId}`,
    );
    const hotTablets = join(dir, "hot-tablets.json");
    writeFileSync(hotTablets, recorded);
    const out = join(dir, "bigtable");
    const result = printedJson(
      await keyspread([
        ...onRecordedAnswer(tableId, SCHEMA, hotTablets),
        "--nodes",
        "12",
        "--sample",
        "1000",
        // The rows' size (64-byte values), so the row-sample filter spreads each tablet's share of
        // the sample through it; at the default 1 KB a row the filter keeps every row, and a share
        // fills from its tablet's first rows, which may miss a hot range the emulator's random
        // boundaries put near a tablet's end.
        "--row-bytes",
        "64",
        // The sample must not depend on how busy the machine is: a sample cut short at its
        // deadline covers only the table's first ranges.
        "--sample-timeout",
        "600s",
        "--out",
        out,
        "--json",
      ]),
    );
    expect(result.notes).toEqual([]);
    expect(result.report.diagnosis.kind).toBe("wide-hot-range");
    expect(result.report.hotRanges).toHaveLength(4);
    // A recorded answer's span is its tablets' times, not the look-back window.
    expect(result.report.heat).toMatchObject({
      start: "2026-03-02T14:00:00.000Z",
      end: "2026-03-02T14:45:00.000Z",
    });
    expect(result.report.hotRanges[0].start.values.deviceID).toMatch(/^acme-/);
    expect(result.report.sample.keys).toBeGreaterThan(0);
    expect(result.report.sample.keys).toBeLessThanOrEqual(1000);
    expect(result.report.sample.undecoded.count).toBe(0);
    const scenario = parseScenario(readFileSync(join(out, "scenario.yaml"), "utf8"));
    expect(scenario.cluster.nodes).toBe(12);
    expect(result.written.map((path: string) => path.slice(out.length + 1)).sort()).toEqual([
      "diagnosis.json",
      "diagnosis.md",
      "scenario.yaml",
    ]);
  });

  it("calls one hot device under a reverse timestamp a hot entity; refuses a schema that does not fit unless --force", async () => {
    const problem = plantedProblems(1500).find((each) => each.expected.kind === "one-hot-entity")!;
    const tableId = `diagent${process.pid}_${Date.now().toString(36)}`;
    const store = await BigtableStore.createTable({ tableId });
    expect((await store.write(puts(problem.keys))).failed).toEqual([]);
    await store.close();
    const schemaFile = join(dir, "tenant-device.schema.json");
    writeFileSync(schemaFile, JSON.stringify(problem.schema.spec));
    const hotTablets = join(dir, "hot-entity.hot-tablets.json");
    const asJson = (tablets: ReturnType<PlantedProblem["hotTablets"]>) =>
      tablets.map((tablet) => ({
        tableName: `projects/keyspread/instances/keyspread/tables/${tablet.table}`,
        startKey: tablet.startKey.toString(),
        endKey: tablet.endKey.toString(),
        startTime: tablet.startTime.toISOString(),
        endTime: tablet.endTime.toISOString(),
        nodeCpuUsagePercent: tablet.nodeCpuPercent,
      }));
    writeFileSync(
      hotTablets,
      JSON.stringify({
        hotTablets: asJson([...problem.hotTablets(tableId), ...problem.hotTablets("orders")]),
      }),
    );
    const args = (schema: string) => [
      ...onRecordedAnswer(tableId, schema, hotTablets),
      "--nodes",
      "3",
      "--sample",
      "3000",
      "--row-bytes",
      "100",
      "--sample-timeout",
      "600s",
      "--json",
    ];
    const result = printedJson(await keyspread(args(schemaFile)));
    expect(result.report.diagnosis).toMatchObject({ kind: "one-hot-entity", remedy: "spread-the-entity" });
    expect(result.report.heat.otherTables).toEqual([{ table: "orders", tablets: 2 }]);
    expect(result.report.scenario.observed).toEqual({ nodes: 3, hottestCpu: 0.92 });

    const refused = await keyspread(args(SCHEMA));
    expect(refused.code).toBe(1);
    const { refused: refusal } = JSON.parse(refused.stdout);
    expect(refusal).toMatchObject({
      code: "schema-does-not-fit",
      forcible: true,
      details: { keys: expect.any(Number), undecoded: expect.any(Number) },
    });
    // stderr carries the same refusal, in words.
    expect(refused.stderr).toBe(`keyspread: ${refusal.message}\n`);
    const forced = printedJson(await keyspread([...args(SCHEMA), "--force"]));
    expect(forced.report.forced.map((each: { code: string }) => each.code)).toEqual(["schema-does-not-fit"]);
  });

  it("without a recorded answer on the emulator, says there is no admin API there", async () => {
    const { code, stderr } = await keyspread([
      "diagnose",
      "--store",
      "bigtable",
      "--table",
      "t",
      "--schema",
      SCHEMA,
    ]);
    expect(code).toBe(1);
    expect(stderr).toMatch(/no instance admin API.*--hot-tablets/);
  });
});

describe("keyspread diagnose --store embedded", () => {
  it("works from the access log and the key sample, and says there is no hot-tablet API", async () => {
    const directory = join(dir, "embedded");
    const store = await EmbeddedStore.open({ table: "counters", directory });
    const hot = Buffer.from("acme-000042#8227453599999");
    const keys = incidentKeySample(500);
    expect((await store.write(puts([...keys, hot]))).failed).toEqual([]);
    await store.close();
    const log = join(dir, "access.jsonl");
    const t0 = Date.parse("2026-03-02T14:00:00Z");
    const lines = Array.from({ length: 2000 }, (_, i) =>
      JSON.stringify({
        ts: t0 + i * 1000,
        key: (i % 5 === 0 ? keys[i % keys.length]! : hot).toString(),
        op: "write",
      }),
    );
    writeFileSync(log, `${lines.join("\n")}\n`);
    const result = printedJson(
      await keyspread([
        "diagnose",
        "--store",
        "embedded",
        "--directory",
        directory,
        "--table",
        "counters",
        "--schema",
        SCHEMA,
        "--access-log",
        log,
        "--nodes",
        "3",
        "--rates",
        "writes=1000",
        "--json",
      ]),
    );
    expect(result.notes).toEqual(["no-hot-tablet-api"]);
    expect(result.report.heat).toEqual({ kind: "access-log", records: 2000 });
    expect(result.report.diagnosis.kind).toBe("one-hot-row");
    expect(result.report.diagnosis.remedy).toBe("shard-the-row");
    expect(result.report.scenario.cluster.nodes).toBe(3);
    // An access log's shares are of operations, not CPU: no observation to calibrate to.
    expect(result.report.scenario.observed).toBeUndefined();
  });

  it("needs the access log", async () => {
    const { code, stderr } = await keyspread([
      "diagnose",
      "--store",
      "embedded",
      "--table",
      "t",
      "--schema",
      SCHEMA,
    ]);
    expect(code).toBe(1);
    expect(stderr).toMatch(/--access-log FILE/);
  });
});
