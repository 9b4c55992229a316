/**
 * `keyspread migrate begin|advance|status` and `backfill|validate --migration` on the built bin,
 * against a record whose service side this test plays: two processes at once never corrupt the
 * record or both win a step, a lock left by a killed process is taken over, and an unlucky
 * operator's mistakes are refused, naming what to do.
 */
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { LiveMigrationError, type LiveMigrationProblem } from "../../migrate/live/live-migration-error.js";
import {
  type MigrationRecord,
  readMigrationRecord,
  type ServiceStatus,
  tableRef,
  updateMigrationRecord,
} from "../../migrate/live/migration-record.js";
import { SameTableError } from "../../migrate/same-table-error.js";
import { metricsSchema } from "../../serve/ingest/points/metrics-schema.js";
import { EmbeddedStore } from "../../store/embedded/embedded.js";
import { SaltedTable } from "../../table/salted-table.js";
import { FlagsWithMigrationError } from "./migrate.js";

const dir = mkdtempSync(join(tmpdir(), "keyspread-migrate-live-"));
let files = 0;
const fresh = (name: string) => join(dir, `${files++}-${name}`);

function cli(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ["dist/cli/main.js", ...args], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk) => (stdout += chunk));
    child.stderr.on("data", (chunk) => (stderr += chunk));
    child.once("close", (code) => resolve({ code, stdout, stderr }));
  });
}

type Run = { code: number | null; stderr: string };

/** The command failed (exit 1) with `error`, the typed error the library throws, as its one line on stderr. */
function expectRefused(run: Run, error: Error): void {
  expect({ code: run.code, stderr: run.stderr }).toEqual({
    code: 1,
    stderr: `keyspread: ${error.message}\n`,
  });
}

/** The command failed (exit 1) with the live migration problem `problem`. */
const expectProblem = (run: Run, problem: LiveMigrationProblem) =>
  expectRefused(run, new LiveMigrationError(problem));

const schemaFile = (buckets: number, interval = 300) => {
  const file = fresh(`schema-${buckets}-${interval}.json`);
  writeFileSync(file, JSON.stringify(metricsSchema(buckets, interval).spec));
  return file;
};

/** A record in `phase`, as if a service (this process) had applied it. */
async function recordIn(
  phase: MigrationRecord["phase"],
  service: Partial<ServiceStatus> = {},
): Promise<string> {
  const file = fresh("m.json");
  await updateMigrationRecord(file, () => ({
    format: "keyspread-migration/1",
    old: tableRef(`embedded:${dir}/old`, metricsSchema(1, 300)),
    new: tableRef(`embedded:${dir}/new`, metricsSchema(16, 300)),
    phase,
    revision: 0,
    history: [],
    service: status(0, phase, service),
  }));
  return file;
}

function status(
  revision: number,
  phase: MigrationRecord["phase"],
  extra: Partial<ServiceStatus> = {},
): ServiceStatus {
  return {
    pid: process.pid,
    host: hostname(),
    wal: "wal",
    revision,
    phase,
    applied: true,
    completeBelow: 1,
    updatedAt: new Date().toISOString(),
    ...(phase === "dual-write" ? { dualWriteFrom: 1 } : {}),
    ...extra,
  };
}

const advanceArgs = (file: string, from: string, to: string, ...extra: string[]) => [
  "migrate",
  "advance",
  "--migration",
  file,
  "--from",
  from,
  "--to",
  to,
  ...extra,
];

describe("keyspread migrate advance", () => {
  it("lets one of many concurrent advances take a step, and never corrupts the record while the service writes it", async () => {
    const file = await recordIn("single");
    // The service's side: it rewrites its section again and again meanwhile; every read sees a whole record.
    let serving = true;
    let rewrites = 0;
    const service = (async () => {
      while (serving) {
        const record = await updateMigrationRecord(file, (current) => ({
          ...current!,
          service: status(current!.service!.revision, current!.service!.phase, { completeBelow: ++rewrites }),
        }));
        expect(record?.format).toBe("keyspread-migration/1");
        expect(await readMigrationRecord(file)).toBeDefined();
      }
    })();
    const same = await Promise.all(
      Array.from({ length: 6 }, () => cli(advanceArgs(file, "single", "dual-write", "--wait", "0"))),
    );
    expect(same.map((run) => run.code)).toEqual([0, 0, 0, 0, 0, 0]);
    expect(same.filter((run) => /already in dual-write; nothing changed/.test(run.stderr))).toHaveLength(5);
    let record = (await readMigrationRecord(file))!;
    expect(record).toMatchObject({ phase: "dual-write", revision: 1 });
    expect(record.history).toHaveLength(1);

    // The service applies it; then a rollback and a forward step race: exactly one of them happens.
    await updateMigrationRecord(file, (current) => ({ ...current!, service: status(1, "dual-write") }));
    const racing = await Promise.all([
      ...Array.from({ length: 3 }, () => cli(advanceArgs(file, "dual-write", "single", "--wait", "0"))),
      ...Array.from({ length: 3 }, () =>
        cli(advanceArgs(file, "dual-write", "reads-on-new", "--force", "--wait", "0")),
      ),
    ]);
    serving = false;
    await service;
    expect(rewrites).toBeGreaterThan(5);
    record = (await readMigrationRecord(file))!;
    expect(record.revision).toBe(2);
    expect(record.history).toHaveLength(2);
    const [back, forth] = [racing.slice(0, 3), racing.slice(3)].map((runs) => runs.map((run) => run.code));
    const winner = record.phase === "single" ? back : forth;
    const loser = record.phase === "single" ? forth : back;
    expect(winner).toEqual([0, 0, 0]);
    expect(loser).toEqual([1, 1, 1]);
    for (const run of record.phase === "single" ? racing.slice(3) : racing.slice(0, 3))
      expectProblem(run, {
        code: "wrong-phase",
        migration: file,
        phase: record.phase,
        expected: "dual-write",
        revision: 2,
        setAt: String(record.history.at(-1)?.at),
      });
  }, 120_000);

  it("takes over a lock left by a killed process", async () => {
    const file = await recordIn("single");
    const dead = spawnSync(process.execPath, ["-e", ""]).pid!;
    await writeFile(`${file}.lock`, `${dead}\n`);
    const run = await cli(advanceArgs(file, "single", "dual-write", "--wait", "0"));
    expect(run.code, run.stderr).toBe(0);
    expect((await readMigrationRecord(file))!.phase).toBe("dual-write");
  }, 120_000);

  it("refuses to move forward for a service that is gone, and waits for one that does not apply, then says so", async () => {
    const dead = spawnSync(process.execPath, ["-e", ""]).pid!;
    const gone = await recordIn("single", { pid: dead });
    const refused = await cli(advanceArgs(gone, "single", "dual-write"));
    expectProblem(refused, {
      code: "refused",
      from: "single",
      to: "dual-write",
      refusal: { reason: "service-not-running", pid: dead, host: hostname() },
    });
    expect((await readMigrationRecord(gone))!.revision).toBe(0);

    const stuck = await recordIn("single");
    const waited = await cli(advanceArgs(stuck, "single", "dual-write", "--wait", "1"));
    const { pid, host, updatedAt } = (await readMigrationRecord(stuck))?.service ?? status(0, "single");
    expectProblem(waited, {
      code: "not-applied",
      migration: stuck,
      phase: "dual-write",
      revision: 1,
      seconds: 1,
      lastReport: { pid, host, updatedAt, phase: "single" },
    });

    const skipped = await cli(advanceArgs(stuck, "dual-write", "writes-on-new"));
    expectProblem(skipped, {
      code: "not-one-step",
      from: "dual-write",
      to: "writes-on-new",
      skipped: ["reads-on-new"],
    });
    const none = fresh("none.json");
    const missing = await cli(advanceArgs(none, "single", "dual-write"));
    expectProblem(missing, { code: "no-record", migration: none, begin: true });
  }, 120_000);

  it("prints the record with status", async () => {
    const file = await recordIn("single");
    const run = await cli(["migrate", "status", "--migration", file]);
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ phase: "single", service: { pid: process.pid } });
  }, 120_000);
});

describe("keyspread migrate begin", () => {
  it("records a migration once, only to a new table that exists with a schema the service can serve", async () => {
    const file = fresh("begin.json");
    const [oldSchema, newSchema] = [schemaFile(1), schemaFile(16)];
    const pair = (to: string, toSchema: string) => [
      "migrate",
      "begin",
      "--migration",
      file,
      "--from",
      `embedded:${dir}/old`,
      "--from-schema",
      oldSchema,
      "--to",
      to,
      "--to-schema",
      toSchema,
    ];
    // The new table does not exist yet (the store's own error): nothing is recorded.
    const notYet = await cli(pair(`embedded:${dir}/new`, newSchema));
    expect(notYet.code).toBe(1);
    expect(await readMigrationRecord(file)).toBeUndefined();
    const otherInterval = await cli(pair(`embedded:${dir}/new`, schemaFile(16, 1000)));
    expectProblem(otherInterval, {
      code: "changes-more-than-salt",
      oldFingerprint: metricsSchema(1, 300).fingerprint,
      newFingerprint: metricsSchema(16, 1000).fingerprint,
    });
    expectRefused(
      await cli(pair(`embedded:${dir}/old`, newSchema)),
      new SameTableError(`embedded:${dir}/old`),
    );

    const store = await EmbeddedStore.open({ table: "new", directory: dir });
    await SaltedTable.open(store, metricsSchema(16, 300), { create: true });
    await store.close();
    const begun = await cli(pair(`embedded:${dir}/new`, newSchema));
    expect(begun.code, begun.stderr).toBe(0);
    expect(JSON.parse(begun.stdout)).toMatchObject({ phase: "single", revision: 0, applied: false });
    expect((await cli(pair(`embedded:${dir}/new`, newSchema))).code).toBe(0);
    const other = await cli(pair(`embedded:${dir}/elsewhere`, newSchema));
    expectProblem(other, {
      code: "different-migration",
      migration: file,
      old: `embedded:${dir}/old`,
      new: `embedded:${dir}/new`,
      phase: "single",
    });
  }, 120_000);
});

describe("keyspread migrate backfill|validate --migration", () => {
  it("run only while the service writes both tables, and take the tables from the record", async () => {
    const file = await recordIn("single");
    const backfill = await cli(["migrate", "backfill", "--migration", file]);
    expectProblem(backfill, {
      code: "not-dual-writing",
      migration: file,
      job: "backfill",
      phase: "single",
      revision: 0,
      applied: true,
    });
    const validate = await cli(["migrate", "validate", "--migration", file, "--from", `embedded:${dir}/old`]);
    expectRefused(validate, new FlagsWithMigrationError(["--from"]));
    const neither = await cli(["migrate", "validate", "--to", `embedded:${dir}/old`]);
    expect(neither.stderr).toMatch(/missing --from, --from-schema, --to-schema/);
  }, 120_000);
});
