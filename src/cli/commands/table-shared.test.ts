import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Bigtable } from "@google-cloud/bigtable";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { compileSchema } from "../../keys/schema.js";
import { BigtableStore } from "../../store/bigtable/bigtable.js";
import { createTableRequest, requestsOn } from "../../store/bigtable/emulator-requests.testsuite.js";
import { cellsToJson } from "../../table/cells-json.js";
import { runbookSteps } from "./runbook-steps.testsuite.js";
import { FLEET, jsonLines, lines, points, STORES, tableCommand } from "./table-cli.testsuite.js";

// `keyspread table` on tables shared with other code: writes that keep what they do not name,
// adopting, foreign rows, splits and GC rules, app profiles.
// Each command is a process that loads the Bigtable client (1-4 s on the shared 2-core machine).
const CLI_STEPS_TIMEOUT = 240_000;

describe.each(STORES)("keyspread table writes on the %s store", (_kind, cliTable) => {
  const { args, open } = cliTable();
  const table = tableCommand(FLEET, args);
  const key = { deviceId: "dev-1", metric: "cpu", ts: 1_700_000_000_000 };
  const rowKey = compileSchema({
    version: 1,
    name: "fleet",
    layout: "text",
    segments: [
      { field: "deviceId", codec: { type: "string" } },
      { field: "metric", codec: { type: "string" } },
      { field: "ts", codec: { type: "timestamp", unit: "ms", reverse: true } },
    ],
    salt: { buckets: 16, fields: ["deviceId"] },
  }).encode(key);
  // The row as stored, read through the library (one CLI process fewer per check).
  const stored = async () => {
    const store = await open();
    try {
      const row = await store.get(rowKey);
      return row && cellsToJson(row.cells);
    } finally {
      await store.close();
    }
  };

  // One row through the commands, step by step: sets only the named cells; --replace and delete are
  // explicit; binary cells print as {hex}.
  const step = runbookSteps(CLI_STEPS_TIMEOUT);

  step("creates the table", async () => {
    expect(table("create").code).toBe(0);
  });

  step("puts the named cells and gets them back, binary ones as {hex}", async () => {
    expect(
      table("put", [], lines({ key, cells: { value: "1", note: "hex:41", raw: { hex: "ff00" } } })).code,
    ).toBe(0);
    expect(JSON.parse(table("get", ["--key", JSON.stringify(key)]).stdout).cells).toEqual({
      value: "1",
      note: "hex:41",
      raw: { hex: "ff00" },
    });
  });

  step("sets only the cells a put names", async () => {
    expect(table("put", [], lines({ key, cells: { value: 2 } })).code).toBe(0);
    expect(await stored()).toEqual({ value: "2", note: "hex:41", raw: { hex: "ff00" } });
  });

  step("deletes only the cells a delete names", async () => {
    expect(jsonLines(table("delete", [], lines({ key, cells: ["note"] })).stdout)).toEqual([
      { deleted: 1, failed: [] },
    ]);
    expect(await stored()).toEqual({ value: "2", raw: { hex: "ff00" } });
  });

  step("replaces the row on --replace; a bad line fails alone, named in the report", async () => {
    const replaced = table(
      "put",
      ["--replace"],
      lines({ key, cells: { only: "x" } }, { key: { ...key, ts: 1 }, cells: { v: { hex: "zz" } } }),
    );
    expect(replaced.code).toBe(1);
    expect(jsonLines(replaced.stdout)).toEqual([
      {
        written: 1,
        failed: [{ line: 2, key: { ...key, ts: 1 }, reason: expect.stringMatching(/^cell "v"/) }],
      },
    ]);
    expect(await stored()).toEqual({ only: "x" });
  });

  step("refuses a delete of an empty cell list, changing nothing", async () => {
    const bad = table("delete", [], lines({ key, cells: [] }));
    expect(bad.code).toBe(1);
    expect(jsonLines(bad.stdout)).toEqual([
      {
        deleted: 0,
        failed: [{ line: 1, key, reason: expect.stringMatching(/^cells must be a non-empty list/) }],
      },
    ]);
    expect(await stored()).toEqual({ only: "x" });
  });

  step("deletes the whole row when a delete names no cells", async () => {
    expect(jsonLines(table("delete", [], lines({ key })).stdout)).toEqual([{ deleted: 1, failed: [] }]);
    expect(await stored()).toBeUndefined();
  });
});

describe("keyspread table on a Bigtable table other code shares", () => {
  const SENSORS = "examples/schemas/farm-sensors.yaml";
  const env = {
    ...process.env,
    KEYSPREAD_BIGTABLE_PROJECT: "keyspread",
    KEYSPREAD_BIGTABLE_INSTANCE: "keyspread",
  };

  describe("adopting it: checks its keys, keeps other families' cells, reads past foreign rows", () => {
    const step = runbookSteps(CLI_STEPS_TIMEOUT);
    const tableId = `shared${process.pid}${Date.now().toString(36)}`;
    const admin = new Bigtable({ projectId: "keyspread", metricsEnabled: false });
    const instance = admin.instance("keyspread");
    const table = tableCommand(SENSORS, ["--store", "bigtable", "--table", tableId], env);
    const tableJsonErrors = tableCommand(SENSORS, ["--store", "bigtable", "--table", tableId], {
      ...env,
      KEYSPREAD_ERRORS: "json",
    });
    // Rows as the farm-sensor recipe writes them, a cell of another family, and one foreign row.
    const recipe = readFileSync("src/keys/fixtures/farm-sensor-keys.jsonl", "utf8")
      .split("\n")
      .filter(Boolean)
      .map((line) => JSON.parse(line).key as string);

    beforeAll(async () => {
      await instance.createTable(tableId, { families: [{ name: "m", rule: { versions: 3 } }, "cf"] });
      const ours = await BigtableStore.open({ tableId });
      const theirs = await BigtableStore.open({ tableId, family: "cf" });
      const put = (key: string, name: string, value: string) => ({
        type: "put" as const,
        key: Buffer.from(key),
        cells: new Map([[name, Buffer.from(value)]]),
      });
      try {
        await ours.write([
          ...recipe.map((key) => put(key, "reading", "20")),
          put("42_farm_0042_bad", "reading", "?"),
        ]);
        await theirs.write([put(recipe[0]!, "other", "x")]);
      } finally {
        await Promise.all([ours.close(), theirs.close()]);
      }
    });
    afterAll(() => admin.close());

    step("refuses to write to or create over it before it is adopted, naming --adopt", async () => {
      expect(JSON.parse(tableJsonErrors("put", [], "").stderr)).toMatchObject({
        name: "MissingSchemaRowError",
        table: `bigtable:keyspread/keyspread/${tableId}`,
      });
      expect(table("create").stderr).toMatch(/ALREADY_EXISTS.*table create --adopt/);
    });

    step("refuses a strict adoption, naming the sampled row that does not decode", async () => {
      const strictAdopt = tableJsonErrors("create", ["--adopt", "--max-undecodable", "0"]);
      expect(strictAdopt.code).toBe(1);
      expect(JSON.parse(strictAdopt.stderr)).toMatchObject({
        name: "AdoptRefusedError",
        refusal: { problem: "undecodable-share", share: 1 / 247, allowed: 0 },
        report: {
          sampledRows: 247,
          undecodableRows: 1,
          undecodable: [{ key: Buffer.from("42_farm_0042_bad").toString("hex") }],
        },
      });
    });

    step("adopts it after checking a sample of its keys", async () => {
      const adopted = table("create", ["--adopt"]);
      expect(adopted.code, adopted.stderr).toBe(0);
      expect(JSON.parse(adopted.stdout)).toMatchObject({
        buckets: 50,
        adopted: { alreadyAdopted: false, sampledRows: 247, undecodableRows: 1 },
      });
    });

    step("puts the named cell as a new version; the other family's cell stays", async () => {
      const first = { farm_id: "0042", sensor_id: "12", timestamp: "20240315080000" };
      expect(table("put", [], lines({ key: first, cells: { reading: "21.5" } })).code).toBe(0);
      const [row] = await instance.table(tableId).row(recipe[0]!).get();
      const data = row.data as Record<string, Record<string, { value: string }[]>>;
      expect(data.cf?.other?.map((cell) => cell.value)).toEqual(["x"]);
      expect(data.m?.reading?.map((cell) => cell.value)).toEqual(["21.5", "20"]);
    });

    step("reads a farm's ranges past the foreign row inside them", async () => {
      // The foreign row sits in bucket 42 before farm 0042's rows, inside the ranges a farm's read plans.
      const scan = table("scan", ["--query", JSON.stringify({ eq: { farm_id: "0042" } }), "--limit", "1"]);
      expect(scan.code, scan.stderr).toBe(0);
      expect(jsonLines(scan.stdout).map((r) => r.key)).toEqual(["42_farm_0042_sensor_12_20240315080000"]);
    });

    step("skips the foreign row in a whole scan and says so; --strict fails on it", async () => {
      const all = table("scan", ["--report"]);
      expect(all.code).toBe(0);
      expect(jsonLines(all.stdout)).toHaveLength(246);
      expect(all.stderr).toMatch(
        new RegExp(
          `keyspread: warning: bigtable:keyspread/keyspread/${tableId}: skipped 1 row\\(s\\) .*"42_farm_0042_bad"`,
        ),
      );
      const report = all.stderr
        .split("\n")
        .filter((line) => line.startsWith("{"))
        .map((line) => JSON.parse(line));
      expect(report).toEqual([expect.objectContaining({ rowsUndecodable: 1 })]);
      const strict = table("scan", ["--strict"]);
      expect(strict.code).toBe(1);
      expect(strict.stderr).toMatch(
        new RegExp(
          `keyspread: bigtable:keyspread/keyspread/${tableId}: row "42_farm_0042_bad" does not decode under schema "farm-sensors": `,
        ),
      );
    });
  });

  it(
    "creates a salted table pre-split at its buckets, with family and GC rules, and routes by --app-profile",
    () => {
      const tableId = `split${process.pid}${Date.now().toString(36)}`;
      const table = tableCommand(FLEET, ["--store", "bigtable", "--table", tableId], env);
      const created = table("create", ["--family", "metrics", "--max-versions", "2", "--max-age", "3600"]);
      expect(created.code, created.stderr).toBe(0);
      expect(JSON.parse(created.stdout)).toMatchObject({ buckets: 16, splits: 15 });
      const request = createTableRequest(tableId);
      expect(request.initialSplits?.map((split) => Buffer.from(split.key, "base64").toString())).toEqual(
        Array.from({ length: 15 }, (_, i) => `${String(i + 1).padStart(2, "0")}#`),
      );
      expect(request.table?.columnFamilies?.metrics?.gcRule).toEqual({
        union: { rules: [{ maxAge: "3600s" }, { maxNumVersions: 2 }] },
      });
      expect(table("put", ["--family", "metrics"], lines(...points)).code).toBe(0);
      const latest = table("latest", [
        "--family",
        "metrics",
        "--app-profile",
        "latest-single-cluster",
        "--key",
        JSON.stringify({ deviceId: "dev-1", metric: "cpu" }),
        "-n",
        "1",
      ]);
      expect(latest.code, latest.stderr).toBe(0);
      expect(jsonLines(latest.stdout)).toHaveLength(1);
      expect(
        requestsOn(tableId)
          .filter((r) => r.method === "ReadRows")
          .at(-1),
      ).toEqual({
        method: "ReadRows",
        appProfileId: "latest-single-cluster",
      });
      // Without --family the cells are looked for in family m, which this table does not have.
      expect(table("latest", ["--key", JSON.stringify({ deviceId: "dev-1", metric: "cpu" })]).stdout).toBe(
        "",
      );
    },
    CLI_STEPS_TIMEOUT,
  );

  it("refuses Bigtable-only options on the embedded store", () => {
    const dir = mkdtempSync(join(tmpdir(), "keyspread-cli-"));
    const refusal = (args: string[]) =>
      JSON.parse(
        tableCommand(FLEET, ["--dir", dir], { ...process.env, KEYSPREAD_ERRORS: "json" })("create", args)
          .stderr,
      );
    expect(refusal(["--max-versions", "2"])).toMatchObject({
      flag: "--max-versions",
      appliesTo: "--store bigtable",
    });
    expect(refusal(["--app-profile", "x"])).toMatchObject({
      flag: "--app-profile",
      appliesTo: "--store bigtable",
    });
    expect(refusal(["--force"])).toMatchObject({ flag: "--force", appliesTo: "--adopt" });
  });
});
