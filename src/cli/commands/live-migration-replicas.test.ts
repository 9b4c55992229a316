/**
 * A live re-keying followed by three `keyspread serve` replicas (the built bin) on Google's Bigtable
 * emulator, the record held in the table (`--migration bigtable:TABLE`), under round-robin load:
 * every phase, a backfill and a validation (0 differences, each writer's rows below its own cut),
 * and a replica paused with SIGSTOP (alive to the registry, applying nothing): `advance` names it
 * while waiting, refuses to move past it, and goes on once it resumed and applied the phase.
 */
import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, describe, expect, it } from "vitest";
import { openStore } from "../../store/open/open.js";
import { cli, exited, lastJson, readAll, startServe, T0 } from "./serve-process.testsuite.js";

const INTERVAL = 300;
const DEVICES = 6;

async function ok(args: string[]): Promise<string> {
  const run = await cli(args);
  expect(run.code, `keyspread ${args.join(" ")}: ${run.stderr}`).toBe(0);
  return run.stdout;
}

describe("a live re-keying followed by three replicas through one record in the table", () => {
  const replicas: Awaited<ReturnType<typeof startServe>>[] = [];
  let stop = false;
  afterAll(async () => {
    stop = true;
    for (const replica of replicas) {
      replica.child.kill("SIGCONT");
      replica.child.kill("SIGTERM");
      await exited(replica.child);
    }
  });

  it("moves through every phase on all three, validates 0 differences, and never past a replica that has not applied", async () => {
    const dir = await mkdtemp(join(tmpdir(), "migration-replicas-"));
    const id = `${process.pid}-${Date.now().toString(36)}`;
    const [oldTable, newTable] = [`rold-${id}`, `rnew-${id}`];
    const migration = `bigtable:${oldTable}`;
    const [oldSchema, newSchema] = [join(dir, "old.json"), join(dir, "new.json")];
    await writeFile(
      oldSchema,
      await ok(["serve", "schema", "--buckets", "1", "--interval", `${INTERVAL}ms`]),
    );
    await writeFile(
      newSchema,
      await ok(["serve", "schema", "--buckets", "8", "--interval", `${INTERVAL}ms`]),
    );
    await (await openStore("bigtable", { table: oldTable, create: true })).close();
    await ok(["table", "create", "--schema", newSchema, "--store", "bigtable", "--table", newTable]);
    const args = (wal: string) => [
      ...["--store", "bigtable", "--table", oldTable, "--wal", wal, "--buckets", "1"],
      // A long lease: the replica paused below stays live (to be waited for) however slow the machine.
      ...["--replica-heartbeat", "300ms", "--replica-lease", "60s", "--migration", migration],
    ];
    for (const n of [0, 1, 2]) replicas.push(await startServe(dir, args(join(dir, `wal-${n}`))));

    // Round-robin load over the replicas that are not paused.
    const paused = new Set<number>();
    const acked: number[] = [];
    let next = 0;
    const client = async (offset: number) => {
      for (let turn = offset; !stop; turn++) {
        const target = turn % 3;
        if (paused.has(target)) continue;
        const batch = Array.from({ length: 10 }, () => next++);
        try {
          const res = await fetch(`${replicas[target]!.url}/v1/ingest`, {
            method: "POST",
            headers: { "content-type": "application/x-ndjson" },
            body: batch
              .map((n) =>
                JSON.stringify({
                  tenant: "acme",
                  deviceId: `dev-${n % DEVICES}`,
                  ts: T0 + n,
                  metrics: { v: n },
                }),
              )
              .join("\n"),
          });
          await res.text();
          if (res.status === 200) acked.push(...batch);
        } catch {
          // Not acknowledged (the test is stopping the replicas).
        }
        await sleep(5); // a steady load, not all the machine
      }
    };
    const load = [client(0), client(1)];
    const ackedAtLeast = (count: number) =>
      expect.poll(() => acked.length, { timeout: 60_000 }).toBeGreaterThanOrEqual(count);
    const advance = (from: string, to: string, wait = 60) =>
      cli([
        "migrate",
        "advance",
        "--migration",
        migration,
        "--from",
        from,
        "--to",
        to,
        "--wait",
        String(wait),
      ]);
    const advanced = async (from: string, to: string) => {
      const run = await advance(from, to);
      expect(run.code, run.stderr).toBe(0);
      const summary = lastJson(run.stdout);
      expect(summary).toMatchObject({ phase: to, applied: true });
      expect(summary.replicas).toHaveLength(3);
      return summary;
    };

    await ackedAtLeast(300);
    await ok([
      ...["migrate", "begin", "--migration", migration],
      ...[
        "--from",
        migration,
        "--from-schema",
        oldSchema,
        "--to",
        `bigtable:${newTable}`,
        "--to-schema",
        newSchema,
      ],
    ]);
    await advanced("single", "dual-write");
    await ackedAtLeast(acked.length + 200);
    const backfilled = lastJson(
      await ok(["migrate", "backfill", "--migration", migration, "--checkpoint", join(dir, "backfill.json")]),
    );
    expect(backfilled.rowsRead).toBeGreaterThan(0);
    await ackedAtLeast(acked.length + 200);
    const validated = await cli(["migrate", "validate", "--migration", migration]);
    expect(validated.code, validated.stdout + validated.stderr).toBe(0);
    const summary = lastJson(validated.stdout);
    expect(summary).toMatchObject({ differences: 0 });
    expect(summary.source.rows).toBeGreaterThan(0);
    expect(Object.keys(summary.cut)).toHaveLength(3);
    expect(summary.target.checksum).toBe(summary.source.checksum);

    // Replica 2 paused: alive to the registry (its lease holds 60 s), it applies nothing.
    const paused2 = replicas[2]!;
    paused.add(2);
    paused2.child.kill("SIGSTOP");
    // Not applied by every replica: exit 1, and the record's state names the one behind, of 3.
    const waited = await advance("dual-write", "reads-on-new", 2);
    expect(waited.code).toBe(1);
    const status = lastJson(await ok(["migrate", "status", "--migration", migration]));
    const paused2Id = status.replicas.find(
      (r: { revision?: number }) => r.revision !== status.revision,
    )?.replica;
    expect(paused2Id).toBeDefined();
    const behindWaiting = lastJson(waited.stdout);
    expect(behindWaiting).toMatchObject({ phase: "reads-on-new", applied: false, behind: [paused2Id] });
    expect(behindWaiting.replicas).toHaveLength(3);
    // The next step is refused (exit 1, the record unchanged) while that replica is behind.
    const refused = await advance("reads-on-new", "writes-on-new", 0);
    expect(refused.code).toBe(1);
    const behindRefused = lastJson(refused.stdout);
    expect(behindRefused).toMatchObject({
      phase: "reads-on-new",
      revision: status.revision,
      behind: [paused2Id],
    });
    expect(behindRefused.replicas).toHaveLength(3);
    paused2.child.kill("SIGCONT");
    paused.delete(2);

    // Resumed, it applies reads-on-new; the runbook goes on to the end on all three.
    await advanced("reads-on-new", "writes-on-new");
    await ackedAtLeast(acked.length + 200);
    await advanced("writes-on-new", "done");
    await ackedAtLeast(acked.length + 200);
    stop = true;
    await Promise.all(load);

    // Every acknowledged point reads back (from the new table) on each replica.
    await expect
      .poll(
        async () => {
          const stored = new Set<number>();
          for (let d = 0; d < DEVICES; d++)
            for (const ts of await readAll(replicas[d % 3]!.url, `dev-${d}`)) stored.add(ts - T0);
          return acked.filter((n) => !stored.has(n)).length;
        },
        { timeout: 30_000 },
      )
      .toBe(0);
    console.log(
      JSON.stringify({ migrationReplicas: 3, acked: acked.length, differences: summary.differences }),
    );
  }, 300_000);
});
