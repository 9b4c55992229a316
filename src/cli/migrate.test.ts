import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { readCheckpoint } from "../migrate/checkpoint.js";
import { fillSource, MIGRATIONS } from "../migrate/fixtures.testsuite.js";
import { openStoreAt, parseStoreAddress } from "../migrate/store-address.js";
import { openStore } from "../store/open.js";

// End-to-end on the built bin: a backfill killed with SIGKILL mid-way resumes, and validate then
// finds no difference. Each re-keying runs between a different pair of stores.
const ROWS = 2_000;
const unique = () => `${process.pid}-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 6)}`;
const dir = mkdtempSync(join(tmpdir(), "keyspread-migrate-cli-"));

const PAIRS = [
  { from: () => `embedded:${dir}/old-${unique()}`, to: () => `embedded:${dir}/new-${unique()}` },
  { from: () => `embedded:${dir}/old-${unique()}`, to: () => `bigtable:new-${unique()}` },
  { from: () => `bigtable:old-${unique()}`, to: () => `bigtable:new-${unique()}` },
];

function cli(args: string[]) {
  const result = spawnSync("node", ["dist/cli/main.js", ...args], { encoding: "utf8" });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

async function createSource(address: string, migration: (typeof MIGRATIONS)[number]) {
  const parsed = parseStoreAddress(address);
  const store =
    parsed.kind === "bigtable"
      ? await openStore("bigtable", { table: parsed.table, create: true })
      : await openStoreAt(parsed);
  try {
    await fillSource(store, migration.from, migration.row, ROWS);
  } finally {
    await store.close();
  }
}

describe.each(MIGRATIONS.map((migration, i) => ({ ...migration, pair: PAIRS[i]! })))(
  "keyspread migrate: $name",
  ({ pair, ...migration }) => {
    it("resumes a backfill killed with SIGKILL; validate then reports zero differences", async () => {
      const from = pair.from();
      const to = pair.to();
      const fromSchema = join(dir, `from-${unique()}.json`);
      const toSchema = join(dir, `to-${unique()}.json`);
      writeFileSync(fromSchema, JSON.stringify(migration.from.spec));
      writeFileSync(toSchema, JSON.stringify(migration.to.spec));
      if (to.startsWith("bigtable:")) {
        await (await openStore("bigtable", { table: parseStoreAddress(to).table, create: true })).close();
      }
      await createSource(from, migration);
      const checkpoint = join(dir, `checkpoint-${unique()}.json`);
      const pairArgs = ["--from", from, "--from-schema", fromSchema, "--to", to, "--to-schema", toSchema];
      const backfillArgs = ["migrate", "backfill", ...pairArgs, "--checkpoint", checkpoint, "--batch", "100"];

      // 2,000 rows at 1,000 rows/s: killed after a few checkpoints, well before the end.
      const child = spawn("node", ["dist/cli/main.js", ...backfillArgs, "--rate", "1000"], {
        stdio: "ignore",
      });
      const exited = new Promise((resolve) => child.once("exit", (_code, signal) => resolve(signal)));
      for (
        let saved = await readCheckpoint(checkpoint);
        (saved?.rowsRead ?? 0) < 300;
        saved = await readCheckpoint(checkpoint)
      ) {
        await sleep(20);
      }
      child.kill("SIGKILL");
      expect(await exited).toBe("SIGKILL");
      const killedAt = await readCheckpoint(checkpoint);
      expect(killedAt).toMatchObject({ complete: false });
      expect(killedAt!.rowsRead).toBeLessThan(ROWS);

      const resumed = cli(backfillArgs);
      expect(resumed.code, resumed.stderr).toBe(0);
      const result = JSON.parse(resumed.stdout);
      expect(result).toMatchObject({
        rowsRead: ROWS,
        rowsWritten: ROWS,
        rowsSkipped: 0,
        resumedFrom: expect.any(String),
      });
      expect(result.rowsReadThisRun).toBeLessThanOrEqual(ROWS - killedAt!.rowsRead);

      const validated = cli(["migrate", "validate", ...pairArgs, "--sample", "5"]);
      expect(validated.code, validated.stderr).toBe(0);
      const summary = JSON.parse(validated.stdout.trim().split("\n").at(-1)!);
      expect(summary).toMatchObject({ differences: 0, source: { rows: ROWS }, target: { rows: ROWS } });
      expect(summary.target.checksum).toBe(summary.source.checksum);
    });
  },
);

describe("keyspread migrate validate", () => {
  it("prints each difference and exits 1", async () => {
    const migration = MIGRATIONS[0]!;
    const from = `embedded:${dir}/old-${unique()}`;
    const to = `embedded:${dir}/new-${unique()}`;
    const schema = join(dir, `s-${unique()}.json`);
    writeFileSync(schema, JSON.stringify(migration.from.spec));
    await createSource(from, migration);
    const empty = await openStoreAt(parseStoreAddress(to));
    await fillSource(empty, migration.from, migration.row, 0);
    await empty.close();
    const validated = cli([
      "migrate",
      "validate",
      "--from",
      from,
      "--from-schema",
      schema,
      "--to",
      to,
      "--to-schema",
      schema,
      "--ranges",
      "2",
    ]);
    expect(validated.code).toBe(1);
    expect(validated.stderr).toMatch(/migrate validate: \d+ difference\(s\)/);
    const lines = validated.stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line));
    expect(lines.filter((line) => line.kind === "range")).toHaveLength(2);
    expect(lines.at(-1)).toMatchObject({ source: { rows: ROWS }, target: { rows: 0 } });
  });
});

describe("keyspread migrate plan", () => {
  it("prints the runbook with the commands for these two tables", () => {
    const [from, to] = [MIGRATIONS[1]!.from, MIGRATIONS[1]!.to].map((schema) => {
      const file = join(dir, `plan-${unique()}.json`);
      writeFileSync(file, JSON.stringify(schema.spec));
      return file;
    });
    const result = cli([
      "migrate",
      "plan",
      "--from",
      "embedded:scores",
      "--from-schema",
      from!,
      "--to",
      "bigtable:scores-v2",
      "--to-schema",
      to!,
    ]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain("salt.buckets: old 100, new 50");
    expect(result.stdout).toContain(
      `keyspread migrate backfill --from embedded:./.keyspread/scores --from-schema ${from} --to bigtable:scores-v2 --to-schema ${to} --checkpoint .keyspread/backfill-scores-to-scores-v2.json`,
    );
  });

  it("refuses a runbook whose old and new table are the same (its last step deletes the old one)", () => {
    const file = join(dir, `plan-${unique()}.json`);
    writeFileSync(file, JSON.stringify(MIGRATIONS[1]!.from.spec));
    const args = ["--from-schema", file, "--to", "embedded:scores", "--to-schema", file];
    const result = cli(["migrate", "plan", "--from", "embedded:scores", ...args]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/--from and --to name the same table/);
  });
});
