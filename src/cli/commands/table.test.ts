// The table commands end to end (shared helpers and stores: table-cli.testsuite.ts).
import { spawnSync } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { FLEET, jsonLines, lines, points, STORES, tableCommand } from "./table-cli.testsuite.js";

describe.each(STORES)("keyspread table on the %s store", (_kind, cliTable) => {
  const table = tableCommand(FLEET, cliTable().args, {
    ...process.env,
    KEYSPREAD_BIGTABLE_PROJECT: "p",
    KEYSPREAD_BIGTABLE_INSTANCE: "i",
  });

  it("creates, writes and reads back latest-N, scans and gets", () => {
    const created = table("create");
    expect(created.code, created.stderr).toBe(0);
    expect(JSON.parse(created.stdout)).toMatchObject({
      fingerprint: expect.stringMatching(/^ks1-/),
      buckets: 16,
    });

    expect(jsonLines(table("put", [], lines(...points)).stdout)).toEqual([{ written: 12, failed: [] }]);

    const latest = table("latest", [
      "--key",
      JSON.stringify({ deviceId: "dev-1", metric: "cpu" }),
      "-n",
      "2",
    ]);
    expect(latest.code, latest.stderr).toBe(0);
    expect(jsonLines(latest.stdout).map((row) => [row.values.ts, row.cells.value])).toEqual([
      [1_700_000_010_000, "10"],
      [1_700_000_007_000, "7"],
    ]);

    const scan = table("scan", ["--limit", "5", "--report"]);
    const rows = jsonLines(scan.stdout);
    expect(rows).toHaveLength(5);
    const logical = rows.map((row) => `${row.values.deviceId}|${row.values.metric}|${9e15 - row.values.ts}`);
    expect(logical).toEqual([...logical].sort());
    expect(JSON.parse(scan.stderr)).toMatchObject({ fanout: 16, rowsReturned: 5, partial: false });

    const got = table("get", ["--key", JSON.stringify(points[4]!.key)]);
    expect(JSON.parse(got.stdout)).toMatchObject({ values: points[4]!.key, cells: { value: "4" } });
  });

  it("names the line of a key that cannot be encoded, deep in a batch, and writes the others", () => {
    const rows = Array.from({ length: 1200 }, (_, i) => ({
      key: { deviceId: `b${i}`, metric: "cpu", ts: i },
      cells: { value: "v" },
    }));
    const bad = rows.map((row, i) => (i === 1100 ? { key: { deviceId: "b", ts: 1 } } : row));
    const result = table("put", [], lines(...bad));
    expect(result.code).toBe(1);
    const [report] = jsonLines(result.stdout);
    expect(report.written).toBe(1199);
    expect(report.failed.map(({ line, key }: { line: number; key: unknown }) => ({ line, key }))).toEqual([
      { line: 1101, key: { deviceId: "b", ts: 1 } },
    ]);
    expect(report.failed[0].reason).toMatch(/^field "metric"/);
  });

  it("reports every bad line by number on stdout and writes the good ones", () => {
    const good = [1, 2].map((ts) => ({
      key: { deviceId: "fresh", metric: "cpu", ts },
      cells: { value: "v" },
    }));
    const missingTs = { key: { deviceId: "y", metric: "cpu" }, cells: { value: "3" } };
    const noCells = { key: { deviceId: "z", metric: "cpu", ts: 1 }, cells: {} };
    const input = `${lines(...good, missingTs)}not json\n\n${lines({ key: { deviceId: "x", metric: "cpu", ts: "soon" } }, noCells)}`;
    const result = table("put", [], input);
    expect(result.code).toBe(1);
    const [report] = jsonLines(result.stdout);
    expect(report.written).toBe(2);
    // Blank line 5 is skipped but counted.
    expect(report.failed.map(({ line, key }: { line: number; key: unknown }) => ({ line, key }))).toEqual([
      { line: 3, key: missingTs.key },
      { line: 4, key: null },
      { line: 6, key: { deviceId: "x", metric: "cpu", ts: "soon" } },
      { line: 7, key: noCells.key },
    ]);
    expect(
      report.failed.map((failure: { reason: string }) => /^field "(\w+)"/.exec(failure.reason)?.[1]),
    ).toEqual(["ts", undefined, "ts", undefined]);
    const written = table("scan", ["--query", JSON.stringify({ eq: { deviceId: "fresh" } })]);
    expect(jsonLines(written.stdout).map((row) => row.values.ts)).toEqual([2, 1]);
  });
});

describe("keyspread table explain", () => {
  it("prints the ranges and fan-out without a store", () => {
    const result = spawnSync(
      "node",
      [
        "dist/cli/main.js",
        "table",
        "explain",
        "--schema",
        FLEET,
        "--query",
        '{"eq":{"deviceId":"d1"},"limit":100}',
      ],
      { encoding: "utf8" },
    );
    expect(result.status, result.stderr).toBe(0);
    const plan = JSON.parse(result.stdout);
    expect(plan).toMatchObject({ fanout: 1, limit: 100 });
    expect(plan.ranges).toHaveLength(1);
  });

  it("refuses to open a table with a different schema", () => {
    const dir = mkdtempSync(join(tmpdir(), "keyspread-cli-"));
    const run = (schema: string, command: string) =>
      spawnSync(
        "node",
        ["dist/cli/main.js", "table", command, "--schema", schema, "--dir", dir, "--table", "shared"],
        { encoding: "utf8", input: "", env: { ...process.env, KEYSPREAD_ERRORS: "json" } },
      );
    expect(run(FLEET, "create").status).toBe(0);
    const other = run("examples/schemas/game-studio-md5.yaml", "put");
    expect(other.status).toBe(1);
    expect(JSON.parse(other.stderr)).toMatchObject({
      name: "SchemaMismatchError",
      differences: expect.arrayContaining([expect.objectContaining({ path: "name" })]),
    });
  });
});
