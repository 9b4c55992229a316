// `keyspread migrate plan --nodes …` on the built bin: the live table measured without a scan
// (SampleRowKeys on Google's emulator; counted on the embedded store) and the migration sized.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { compileSchema } from "../../keys/index.js";
import { SIZING_CONSTANTS } from "../../migrate/sizing/sizing-constants.js";
import { sizingReport } from "../../migrate/sizing/sizing-report.js";
import { openStore } from "../../store/open/open.js";

const keyspread = (...args: string[]) => {
  const result = spawnSync("node", ["dist/cli/main.js", ...args], { encoding: "utf8" });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
};

const dir = mkdtempSync(join(tmpdir(), "keyspread-plan-sizing-"));
const schema = (name: string, buckets: number) => {
  const file = join(dir, `${name}.json`);
  writeFileSync(
    file,
    JSON.stringify({
      version: 1,
      name,
      layout: "text",
      segments: [{ field: "id", codec: { type: "uint", width: 8 } }],
      salt: { buckets, fields: ["id"] },
    }),
  );
  return file;
};
const oldSchema = schema("ids-4", 4);
const newSchema = schema("ids-16", 16);
let unique = 0;

interface PlanJson {
  volume: { rows: number; storedBytes: number; basis: string; rowBytes: number; rowBytesBasis: string };
  sizing: {
    rows: number;
    cpu: { today: number; liveWrites: number; dualWrite: number };
    onFewestNodes: { nodes: number; bound: string; rowsPerS: number };
    atRequestedRate: { nodes: number; rowsPerS: number };
    requestedRowsPerS: number;
  };
}

async function fill(kind: "bigtable" | "embedded", table: string, rows: number): Promise<void> {
  const store = await openStore(kind, { table, directory: dir, create: true });
  const keys = compileSchema(JSON.parse(readFileSync(oldSchema, "utf8")));
  try {
    await store.write(
      Array.from({ length: rows }, (_, id) => ({
        type: "put" as const,
        key: keys.encode({ id }),
        cells: new Map([["v", Buffer.alloc(100, 1)]]),
      })),
    );
  } finally {
    await store.close();
  }
}

describe("keyspread migrate plan --nodes: the migration sized", () => {
  it("on Bigtable (the emulator): bytes from SampleRowKeys, rows from the first rows' size, the physics in the answer", async () => {
    const table = `sized-${process.pid}-${unique++}`;
    await fill("bigtable", table, 2_000);
    const run = keyspread(
      "migrate",
      "plan",
      "--from",
      `bigtable:${table}`,
      "--from-schema",
      oldSchema,
      "--to",
      `bigtable:${table}-v2`,
      "--to-schema",
      newSchema,
      "--nodes",
      "4",
      "--writes-per-s",
      "5000",
      "--tasks",
      "4",
      "--rate",
      "10000",
      "--json",
    );
    expect(run.code, run.stderr).toBe(0);
    const { volume, sizing } = JSON.parse(run.stdout) as PlanJson;
    expect(["sample-row-keys", "sample-row-keys-floor"]).toContain(volume.basis);
    expect(volume.rowBytesBasis).toBe("sampled");
    expect(volume.rowBytes).toBeGreaterThan(100);
    expect(sizing.rows).toBe(volume.rows);
    // No --cpu: today's load is the live writes, and dual-write doubles it.
    expect(sizing.cpu.dualWrite).toBeCloseTo(2 * sizing.cpu.liveWrites, 12);
    expect(sizing.requestedRowsPerS).toBe(40_000);
    expect(sizing.onFewestNodes.nodes).toBeGreaterThanOrEqual(4);
    expect(sizing.atRequestedRate.rowsPerS).toBe(40_000);
  });

  it("on the embedded store the table is counted; a stated row size is used as given", async () => {
    const table = `sized-${unique++}`;
    await fill("embedded", table, 500);
    const run = keyspread(
      "migrate",
      "plan",
      "--from",
      `embedded:${dir}/${table}`,
      "--from-schema",
      oldSchema,
      "--to",
      `embedded:${dir}/${table}-v2`,
      "--to-schema",
      newSchema,
      "--nodes",
      "3",
      "--cpu",
      "40%",
      "--writes-per-s",
      "1000",
      "--row-bytes",
      "512",
      "--data-boost",
      "--json",
    );
    expect(run.code, run.stderr).toBe(0);
    const { volume, sizing } = JSON.parse(run.stdout) as PlanJson;
    expect(volume).toMatchObject({ basis: "scan", rowBytesBasis: "given" });
    expect(volume.rows).toBeGreaterThanOrEqual(500);
    expect(sizing.cpu.today).toBeCloseTo(0.4, 12);
    expect(sizing.onFewestNodes.bound).not.toBe("cluster-cpu");
  });

  it("prints the sizing under the runbook, and refuses --json without --nodes and a bad --cpu", async () => {
    const table = `sized-${unique++}`;
    await fill("embedded", table, 10);
    const pair = [
      "--from",
      `embedded:${dir}/${table}`,
      "--from-schema",
      oldSchema,
      "--to",
      `embedded:${dir}/${table}-v2`,
      "--to-schema",
      newSchema,
    ];
    const text = keyspread("migrate", "plan", ...pair, "--nodes", "2");
    expect(text.code, text.stderr).toBe(0);
    // The runbook, then the report of the sizing that --json prints (8 tasks at the default rate, by default).
    const runbook = keyspread("migrate", "plan", ...pair).stdout;
    const { volume, sizing } = JSON.parse(
      keyspread("migrate", "plan", ...pair, "--nodes", "2", "--json").stdout,
    );
    const report = sizingReport(sizing, {
      volume,
      tasks: 8,
      rowsPerSPerTask: SIZING_CONSTANTS.rowsPerSPerTask.value,
      dataBoost: false,
      nodes: 2,
    });
    expect(text.stdout).toBe(`${runbook}\n${report.join("\n")}\n`);
    const noNodes = keyspread("migrate", "plan", ...pair, "--json");
    expect(noNodes.code).toBe(1);
    expect(noNodes.stderr).toMatch(/--nodes/);
    const badCpu = keyspread("migrate", "plan", ...pair, "--nodes", "2", "--cpu", "lots");
    expect(badCpu.code).not.toBe(0);
    expect(badCpu.stderr).toMatch(/--cpu/);
  });
});
