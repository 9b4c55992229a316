import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { type BackfillCheckpoint, readBackfillCheckpoint } from "../../migrate/checkpoint.js";
import { fillSource, MIGRATIONS } from "../../migrate/fixtures.testsuite.js";
import { SameTableError } from "../../migrate/same-table-error.js";
import { openStore } from "../../store/open/open.js";
import { formatStoreAddress, openStoreAt, parseStoreAddress } from "../../store/open/store-address.js";
import { RESERVED_PREFIX } from "../../table/schema-guard.js";
import { runbookSteps } from "./runbook-steps.testsuite.js";

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

/** Resolves once the backfill saved at `checkpoint` has read at least `rows` rows. */
async function backfillReached(checkpoint: string, rows: number): Promise<void> {
  await expect
    .poll(async () => (await readBackfillCheckpoint(checkpoint))?.rowsRead ?? 0, {
      timeout: 60_000,
      interval: 20,
    })
    .toBeGreaterThanOrEqual(rows);
}

describe.each(MIGRATIONS.map((migration, i) => ({ ...migration, pair: PAIRS[i]! })))(
  "keyspread migrate: $name",
  ({ pair, ...migration }) => {
    // A backfill killed with SIGKILL mid-way resumes; validate then reports zero differences.
    // Each step spawns the CLI on up to 2,000 rows: half a minute on a busy machine.
    const step = runbookSteps(120_000);
    const from = pair.from();
    const to = pair.to();
    const fromSchema = join(dir, `from-${unique()}.json`);
    const toSchema = join(dir, `to-${unique()}.json`);
    const checkpoint = join(dir, `checkpoint-${unique()}.json`);
    const pairArgs = ["--from", from, "--from-schema", fromSchema, "--to", to, "--to-schema", toSchema];
    const backfillArgs = ["migrate", "backfill", ...pairArgs, "--checkpoint", checkpoint, "--batch", "100"];
    let killedAt: BackfillCheckpoint;

    beforeAll(async () => {
      writeFileSync(fromSchema, JSON.stringify(migration.from.spec));
      writeFileSync(toSchema, JSON.stringify(migration.to.spec));
      if (to.startsWith("bigtable:")) {
        await (await openStore("bigtable", { table: parseStoreAddress(to).table, create: true })).close();
      }
      await createSource(from, migration);
    });

    step("kills a backfill with SIGKILL after a few checkpoints, well before its end", async () => {
      // 2,000 rows at 200 rows/s: 8 s left after the checkpoints waited for, ample to kill it mid-way.
      const child = spawn("node", ["dist/cli/main.js", ...backfillArgs, "--rate", "200"], {
        stdio: "ignore",
      });
      const exited = new Promise((resolve) => child.once("exit", (_code, signal) => resolve(signal)));
      await backfillReached(checkpoint, 300);
      child.kill("SIGKILL");
      expect(await exited).toBe("SIGKILL");
      killedAt = (await readBackfillCheckpoint(checkpoint))!;
      expect(killedAt).toMatchObject({ complete: false });
      expect(killedAt.rowsRead).toBeLessThan(ROWS);
    });

    step("resumes the backfill from its checkpoint to the end", async () => {
      const resumed = cli(backfillArgs);
      expect(resumed.code, resumed.stderr).toBe(0);
      const result = JSON.parse(resumed.stdout);
      expect(result).toMatchObject({
        rowsRead: ROWS,
        rowsWritten: ROWS,
        rowsSkipped: 0,
        resumedFrom: expect.any(String),
      });
      expect(result.rowsReadThisRun).toBeLessThanOrEqual(ROWS - killedAt.rowsRead);
    });

    step("validates: zero differences", async () => {
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
    // Differences: exit 1, each one a JSON line, then the summary counting them.
    expect(validated.code).toBe(1);
    const lines = validated.stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line));
    expect(lines.filter((line) => line.kind === "range")).toHaveLength(2);
    expect(lines.length).toBeGreaterThan(1);
    expect(lines.at(-1)).toMatchObject({
      differences: lines.length - 1,
      source: { rows: ROWS },
      target: { rows: 0 },
    });
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
    const table = formatStoreAddress(parseStoreAddress("embedded:scores"));
    expect({ code: result.code, stderr: result.stderr }).toEqual({
      code: 1,
      stderr: `keyspread: ${new SameTableError(table).message}\n`,
    });
  });
});

describe("keyspread migrate backfill --shard", () => {
  const run = (args: string[]) =>
    new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
      const child = spawn("node", ["dist/cli/main.js", ...args], { stdio: ["ignore", "pipe", "pipe"] });
      let stdout = "";
      let stderr = "";
      child.stdout.on("data", (chunk) => (stdout += chunk));
      child.stderr.on("data", (chunk) => (stderr += chunk));
      child.once("close", (code) => resolve({ code, stdout, stderr }));
    });

  // 4 shards in 4 processes, each killed with SIGKILL mid-way and resumed: validate finds 0 differences.
  // Four processes at once: a step may take half a minute on a busy machine.
  const step = runbookSteps(120_000);
  const migration = MIGRATIONS[0]!; // the fleet incident: unsalted → 16 buckets
  const from = `bigtable:old-${unique()}`;
  const to = `bigtable:new-${unique()}`;
  const fromSchema = join(dir, `from-${unique()}.json`);
  const toSchema = join(dir, `to-${unique()}.json`);
  const pairArgs = ["--from", from, "--from-schema", fromSchema, "--to", to, "--to-schema", toSchema];
  const shardsFile = join(dir, `shards-${unique()}.json`);
  const checkpoints = [1, 2, 3, 4].map((k) => join(dir, `checkpoint-${unique()}-${k}.json`));
  const backfillArgs = (k: number) => [
    "migrate",
    "backfill",
    ...pairArgs,
    "--shard",
    `${k}/4`,
    "--shards-file",
    shardsFile,
    "--checkpoint",
    checkpoints[k - 1]!,
    "--batch",
    "10",
  ];
  let killed: BackfillCheckpoint[];

  beforeAll(async () => {
    writeFileSync(fromSchema, JSON.stringify(migration.from.spec));
    writeFileSync(toSchema, JSON.stringify(migration.to.spec));
    await (await openStore("bigtable", { table: parseStoreAddress(to).table, create: true })).close();
    await createSource(from, migration);
  });

  step("cuts the table into 4 shards from sampled keys", async () => {
    const sampled = join(dir, `sampled-${unique()}.json`);
    const cut = cli(["migrate", "shards", "--from", from, "--shards", "4", "--out", sampled]);
    expect(cut.code, cut.stderr).toBe(0);
    expect(JSON.parse(cut.stdout)).toMatchObject({ file: sampled, shards: 4, splitKeys: expect.any(Array) });
    // The emulator samples ~1 % of rows at random; the steps below use exact quartiles instead, so
    // every shard has 500 rows to be killed in.
    const source = await openStoreAt(parseStoreAddress(from));
    const keys: string[] = [];
    for await (const row of source.read([{ start: Buffer.alloc(0), end: RESERVED_PREFIX }])) {
      keys.push(row.key.toString("hex"));
    }
    writeFileSync(
      shardsFile,
      JSON.stringify({
        version: 1,
        table: source.name,
        shards: 4,
        splitKeys: [1, 2, 3].map((q) => keys[(q * ROWS) / 4]),
        createdAt: new Date().toISOString(),
      }),
    );
    await source.close();
  });

  step("kills each shard's backfill with SIGKILL after a few checkpoints", async () => {
    // 500 rows a shard at 100 rows/s: each is killed seconds before its end.
    killed = await Promise.all(
      [1, 2, 3, 4].map(async (k) => {
        const child = spawn("node", ["dist/cli/main.js", ...backfillArgs(k), "--rate", "100"], {
          stdio: "ignore",
        });
        const exited = new Promise((resolve) => child.once("exit", (_code, signal) => resolve(signal)));
        await backfillReached(checkpoints[k - 1]!, 30);
        child.kill("SIGKILL");
        expect(await exited).toBe("SIGKILL");
        return (await readBackfillCheckpoint(checkpoints[k - 1]!))!;
      }),
    );
    for (const [i, checkpoint] of killed.entries()) {
      expect(checkpoint).toMatchObject({ complete: false, shard: { index: i + 1, count: 4 } });
      expect(checkpoint.rowsRead).toBeLessThan(ROWS / 4);
    }
  });

  step("resumes the four backfills in parallel to the end of their shards", async () => {
    const resumed = await Promise.all([1, 2, 3, 4].map((k) => run(backfillArgs(k))));
    const results = resumed.map(({ code, stdout, stderr }) => {
      expect(code, stderr).toBe(0);
      return JSON.parse(stdout);
    });
    expect(results.map((r) => r.rowsRead)).toEqual([500, 500, 500, 500]);
    results.forEach((result, i) => {
      expect(result.rowsReadThisRun).toBeLessThanOrEqual(500 - killed[i]!.rowsRead);
      expect(result.resumedFrom).toEqual(expect.any(String));
    });
  });

  step("validates the whole table: zero differences", async () => {
    const whole = cli(["migrate", "validate", ...pairArgs, "--sample", "5"]);
    expect(whole.code, whole.stderr).toBe(0);
    expect(JSON.parse(whole.stdout.trim().split("\n").at(-1)!)).toMatchObject({
      differences: 0,
      source: { rows: ROWS },
      target: { rows: ROWS },
    });
  });

  step("validates shard by shard: zero differences, every row in one shard", async () => {
    const toShardsFile = join(dir, `to-shards-${unique()}.json`);
    const byShard = await Promise.all(
      [1, 2, 3, 4].map((k) =>
        run([
          "migrate",
          "validate",
          ...pairArgs,
          "--shard",
          `${k}/4`,
          "--shards-file",
          shardsFile,
          "--to-shards-file",
          toShardsFile,
        ]),
      ),
    );
    const summaries = byShard.map(({ code, stdout, stderr }) => {
      expect(code, stderr).toBe(0);
      return JSON.parse(stdout.trim());
    });
    expect(summaries.map((s) => s.differences)).toEqual([0, 0, 0, 0]);
    expect(summaries.map((s) => s.source.rows)).toEqual([500, 500, 500, 500]);
    expect(summaries.reduce((sum, s) => sum + s.target.rows, 0)).toBe(ROWS);
  });
});
