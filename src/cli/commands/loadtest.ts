/**
 * `keyspread loadtest --scenario FILE --design NAME --table bigtable:PROJECT/INSTANCE/TABLE`: one
 * task of a load test (one process on one machine is the job with one task), its index from the
 * engine's environment (Cloud Run, Kubernetes indexed Jobs, Batch) or `--task-index`; `loadtest
 * status --table T`, the run as the table holds it; `loadtest delete --table T`, what the run wrote.
 * Everything it refuses (an unknown design, a table holding others' rows, a scale the tasks cannot
 * drive, another run's table) is refused before anything is written. The expected cost prints on
 * stderr before the run, and a terminal is asked to confirm; the lab's prediction prints beside
 * the measurement at the end (live on a terminal); the result prints as JSON with `--json`.
 */
import { writeFile } from "node:fs/promises";
import { createInterface } from "node:readline/promises";
import type { Command } from "commander";
import { FileAccessLogSink } from "../../access-log/file-sink.js";
import { compileSchema } from "../../keys/index.js";
import { displayKey } from "../../keys/key-text.js";
import type { KeySchema } from "../../keys/types.js";
import { openAdminClusterSource, runCpu, watchCluster } from "../../loadtest/cluster-watch.js";
import { compareLoad, type LoadComparison, loggedWrites } from "../../loadtest/load-by-range.js";
import { runLoadTestTask, type TaskOutcome } from "../../loadtest/loadtest-task.js";
import type { Interval } from "../../loadtest/measurement.js";
import { type ClusterCpu, formatSideBySide, predict, sideBySide } from "../../loadtest/prediction.js";
import { describeRunCost, runCost } from "../../loadtest/run-cost.js";
import { LOADTEST_CELL, openRun, runRowKeys, scenarioHash } from "../../loadtest/run-record.js";
import { describeRunStatus, type RunStatus, readRunStatus } from "../../loadtest/run-status.js";
import { checkDrivable, DEFAULT_TASK_CAPACITY, scaleScenario } from "../../loadtest/scaled-scenario.js";
import { openTestTable } from "../../loadtest/test-table.js";
import { DEFAULT_LEASE_MS } from "../../migrate/job/shard-lease.js";
import { type TaskIdentity, taskIdentity } from "../../migrate/job/task-identity.js";
import type { DesignResult, SteadyState } from "../../sim/results/results.js";
import { parseDuration } from "../../sim/scenario/duration.js";
import { BigtableStore, resolveConfig } from "../../store/bigtable/bigtable.js";
import { formatStoreAddress, parseStoreAddress, type StoreAddress } from "../../store/open/store-address.js";
import type { StoreMutation } from "../../store/store.js";
import { SaltedTable } from "../../table/salted-table.js";
import { RESERVED_PREFIX } from "../../table/schema-guard.js";
import { argumentOf, guarded, parsePositiveInt, wholeNumberIn, write } from "../shared/io.js";
import { readScenarioFile } from "../shared/scenario-file.js";

interface RunOptions {
  scenario: string;
  design: string;
  table: string;
  duration?: number;
  scale: number;
  tasks?: number;
  taskIndex?: number;
  nodes?: number;
  taskCapacity: number;
  maxErrorRate: number;
  maxInFlight: number;
  leaseSeconds: number;
  interval: number;
  accessLog?: string;
  accessLogSample: number;
  reuseTable?: string;
  yes?: boolean;
  calibrate?: string;
  hottestCpu?: number;
  averageCpu?: number;
  cluster?: string;
  clusterPoll: number;
  json?: boolean;
}

const share = (name: string) =>
  argumentOf((text: string) => {
    const value = Number(text);
    if (!(Number.isFinite(value) && value > 0 && value <= 1))
      throw new Error(`${name} "${text}": allowed a share in (0, 1]`);
    return value;
  });
const seconds = argumentOf((text: string) => parseDuration(/^\d+(\.\d+)?$/.test(text) ? Number(text) : text));

export function registerLoadtestCommands(program: Command): void {
  const loadtest = program
    .command("loadtest")
    .description(
      "a real load test of a scenario's design against a Bigtable table, as tasks of an indexed job, with the lab's prediction beside the measurement",
    );
  const run = loadtest
    .command("run", { isDefault: true })
    .description("run one task of the load test (the default subcommand)")
    .requiredOption("--scenario <file>", "scenario file (YAML or JSON)")
    .requiredOption("--design <name>", "the scenario's design to test")
    .requiredOption(
      "--table <address>",
      "bigtable:TABLE or bigtable:PROJECT/INSTANCE/TABLE (created if absent)",
    )
    .option("--duration <d>", "how long the run lasts, e.g. 3h (default: the scenario's duration)", seconds)
    .option("--scale <share>", "share of the scenario's entities and rates to drive", share("--scale"), 0.1)
    .option(
      "--tasks <n>",
      "tasks of the indexed job (default 1, or the engine's count)",
      wholeNumberIn(1, 10_000),
    )
    .option(
      "--task-index <k>",
      "this task's index, 0 ≤ K < N (default: CLOUD_RUN_TASK_INDEX, JOB_COMPLETION_INDEX or BATCH_TASK_INDEX)",
      wholeNumberIn(0, 9_999),
    )
    .option(
      "--nodes <n>",
      "the test instance's nodes, for the prediction and the cost (default: the design's × scale)",
      parsePositiveInt,
    )
    .option(
      "--task-capacity <ops>",
      "operations per second one task is trusted to drive (refuses a scale past tasks × this)",
      parsePositiveInt,
      DEFAULT_TASK_CAPACITY,
    )
    .option(
      "--max-error-rate <share>",
      "stop when an interval's failed share passes this",
      share("--max-error-rate"),
      0.05,
    )
    .option("--max-in-flight <n>", "requests in flight per task at most", parsePositiveInt, 64)
    .option(
      "--lease-seconds <s>",
      "how long a task's hold on its share lasts unrenewed",
      parsePositiveInt,
      DEFAULT_LEASE_MS / 1000,
    )
    .option("--interval <s>", "seconds between measurements (and checkpoints)", parsePositiveInt, 5)
    .option(
      "--access-log <file>",
      "write an access log (keyspread heatmap's format); {task} becomes the task index",
    )
    .option(
      "--access-log-sample <share>",
      "share of operations the access log records",
      share("--access-log-sample"),
      1,
    )
    .option(
      "--reuse-table <name>",
      "write to a table holding rows not written by a load test: repeat its name",
    )
    .option(
      "--cluster <id>",
      "the cluster whose CPU and hot tablets task 0 records over the run (default: the instance's only one)",
    )
    .option(
      "--cluster-poll <s>",
      "seconds between task 0's polls of the admin API's hot tablets and Cloud Monitoring's CPU",
      parsePositiveInt,
      60,
    )
    .option("--yes", "start without asking on a terminal")
    .option("--json", "print the task's result as JSON");
  withCalibrateOptions(run).action(guarded(runCommand));
  const status = loadtest
    .command("status")
    .description("the load test as its table holds it: every task's share, achieved rates, latency, errors")
    .requiredOption("--table <address>", "the load test's table")
    .option("--json", "print as JSON");
  withCalibrateOptions(status).action(guarded(statusCommand));
  loadtest
    .command("delete")
    .description("delete what the load test created: its table if it created it, else only the rows it wrote")
    .requiredOption("--table <address>", "the load test's table")
    .option("--yes", "delete without asking on a terminal")
    .action(guarded(deleteCommand));
}

/** `--calibrate` and the CPU it needs, on `run` (at the end of a task) and `status` (any time after). */
function withCalibrateOptions(command: Command): Command {
  return command
    .option(
      "--calibrate <file>",
      "write the `observed:` block `lab` calibrates from (CPU: the run's recorded CPU, or the flags below)",
    )
    .option(
      "--hottest-cpu <share>",
      "the hottest node's CPU over the run, instead of the recorded one (none is recorded on the emulator)",
      share("--hottest-cpu"),
    )
    .option(
      "--average-cpu <share>",
      "the cluster's average CPU over the run, instead of the recorded one",
      share("--average-cpu"),
    );
}

function bigtableAddress(text: string): StoreAddress & { kind: "bigtable" } {
  const address = parseStoreAddress(text);
  if (address.kind !== "bigtable") {
    throw new Error(
      `--table ${text}: a load test runs against Bigtable (its tasks share the table); allowed: bigtable:TABLE or bigtable:PROJECT/INSTANCE/TABLE`,
    );
  }
  return address;
}

const storeOptions = (address: StoreAddress & { kind: "bigtable" }) => ({
  tableId: address.table,
  ...(address.projectId ? { projectId: address.projectId } : {}),
  ...(address.instanceId ? { instanceId: address.instanceId } : {}),
});

/** The task: flags, else the engine's variables, else the job with one task. */
function identity(options: RunOptions): TaskIdentity {
  const engine = ["CLOUD_RUN_TASK_INDEX", "JOB_COMPLETION_INDEX", "BATCH_TASK_INDEX"].some(
    (name) => (process.env[name] ?? "") !== "",
  );
  if (!engine && options.tasks === undefined && options.taskIndex === undefined) {
    return { index: 0, count: 1, engine: "flags" };
  }
  return taskIdentity({ tasks: options.tasks, taskIndex: options.taskIndex });
}

const interactive = () => process.stdin.isTTY === true && process.stderr.isTTY === true;

async function confirm(question: string): Promise<boolean> {
  const prompt = createInterface({ input: process.stdin, output: process.stderr });
  try {
    return /^y(es)?$/i.test((await prompt.question(`${question} [y/N] `)).trim());
  } finally {
    prompt.close();
  }
}

async function runCommand(options: RunOptions): Promise<void> {
  // Everything that can be refused is, before the table is touched.
  const address = bigtableAddress(options.table);
  const scenario = await readScenarioFile(options.scenario);
  const task = identity(options);
  const original = scenario.designs.find((d) => d.name === options.design);
  const nodes =
    options.nodes ?? Math.max(1, Math.ceil((original?.nodes ?? scenario.cluster.nodes) * options.scale));
  const scaled = scaleScenario(scenario, options.design, options.scale, nodes);
  const schema = compileSchema(scaled.design.schema);
  checkDrivable(scaled, task.count, options.taskCapacity);
  const durationS = options.duration ?? scenario.duration;
  const { onEmulator } = resolveConfig(storeOptions(address));
  // The emulator records no CPU: calibrating from it needs the flags, known before the run.
  if (
    options.calibrate !== undefined &&
    onEmulator &&
    cpuFlags(options).hottest === undefined &&
    cpuFlags(options).average === undefined
  )
    throw new Error(NEEDS_CPU);
  process.stderr.write(describeRunCost(runCost(scaled, durationS), nodes, durationS));
  if (!options.yes && interactive() && !(await confirm("start the load test?"))) {
    throw new Error("not started");
  }
  const lab = predict(scaled, durationS);
  const prediction = lab.summary.steadyState;
  const store = await openTestTable(storeOptions(address), schema, scaled, options.reuseTable);
  const sink =
    options.accessLog === undefined
      ? undefined
      : await FileAccessLogSink.open(options.accessLog.replaceAll("{task}", String(task.index)));
  const stop = new AbortController();
  const onSignal = () => stop.abort();
  process.once("SIGTERM", onSignal);
  process.once("SIGINT", onSignal);
  try {
    const table = await SaltedTable.open(store, schema, {
      create: true,
      ...(sink ? { accessLog: { sink, sampleRate: options.accessLogSample } } : {}),
    });
    const run = await openRun(store, {
      scenario: scenario.name,
      scenarioHash: scenarioHash(scaled.scenario),
      design: scaled.design.name,
      schemaFingerprint: schema.fingerprint,
      scale: options.scale,
      tasks: task.count,
      durationS,
      nodes,
    });
    const live = liveLine(prediction);
    const watching =
      task.index === 0 && !onEmulator
        ? await startClusterWatch(
            address,
            store,
            { startMs: run.startedAt, endMs: run.startedAt + durationS * 1000 },
            options,
          )
        : undefined;
    let outcome: TaskOutcome;
    try {
      outcome = await runLoadTestTask({
        store,
        table,
        scaled,
        run,
        task,
        host: `${process.env.HOSTNAME ?? "local"}:${process.pid}`,
        timing: { leaseMs: options.leaseSeconds * 1000, now: Date.now },
        maxErrorRate: options.maxErrorRate,
        intervalS: options.interval,
        maxInFlight: options.maxInFlight,
        signal: stop.signal,
        onInterval: live.update,
      });
    } finally {
      live.stop();
      await watching?.stop();
    }
    const status = await readRunStatus(store);
    if (status === undefined)
      throw new Error(`${store.name}: the load test's run row is gone (deleted during the run?)`);
    await sink?.close();
    const load = sink === undefined ? undefined : await compareWithLab(sink.path, lab, schema);
    await report(task, outcome, status, prediction, load, options);
    if (options.calibrate !== undefined) await writeCalibration(options.calibrate, cpuFlags(options), status);
    if (outcome.status === "failed") process.exitCode = 1;
  } finally {
    process.off("SIGTERM", onSignal);
    process.off("SIGINT", onSignal);
    await sink?.close();
    await store.close();
  }
}

/**
 * Task 0 records the cluster's CPU and hot tablets while the run lasts (one watcher per run; a
 * restarted task 0 goes on after the last recorded poll). A cluster the admin API will not list is
 * said on stderr and the run goes on unwatched.
 */
async function startClusterWatch(
  address: StoreAddress & { kind: "bigtable" },
  store: BigtableStore,
  span: { startMs: number; endMs: number },
  options: RunOptions,
): Promise<{ stop: () => Promise<void> } | undefined> {
  const config = resolveConfig(storeOptions(address));
  let opened: Awaited<ReturnType<typeof openAdminClusterSource>>;
  try {
    opened = await openAdminClusterSource({
      projectId: config.projectId,
      instanceId: config.instanceId,
      tableId: config.tableId,
      ...(options.cluster === undefined ? {} : { cluster: options.cluster }),
    });
  } catch (error) {
    process.stderr.write(`not recording the cluster's CPU and hot tablets: ${(error as Error).message}\n`);
    return undefined;
  }
  const stop = new AbortController();
  const watching = watchCluster({
    source: opened.source,
    store,
    ...span,
    pollMs: options.clusterPoll * 1000,
    signal: stop.signal,
  }).catch((error: unknown) => {
    // Recording failed (the store, not a source: those are recorded): the load test goes on.
    process.stderr.write(
      `stopped recording the cluster's CPU and hot tablets: ${(error as Error).message}\n`,
    );
  });
  return {
    async stop() {
      stop.abort();
      try {
        await watching;
      } finally {
        await opened.close();
      }
    },
  };
}

const cpuFlags = (options: CalibrateOptions): ClusterCpu => ({
  ...(options.hottestCpu === undefined ? {} : { hottest: options.hottestCpu }),
  ...(options.averageCpu === undefined ? {} : { average: options.averageCpu }),
});

/** On a terminal, one line per interval: achieved against target, p99 beside the lab's. */
function liveLine(prediction: SteadyState): {
  update: (interval: Interval) => void;
  stop: () => void;
} {
  if (!process.stderr.isTTY) return { update: () => {}, stop: () => {} };
  let drawn = false;
  return {
    update(interval) {
      const ratio = interval.targetWrites > 0 ? (interval.writes / interval.targetWrites) * 100 : 100;
      process.stderr.write(
        `\r${interval.atS.toFixed(0)} s: writes ${ratio.toFixed(0)} % of target, write p99 ${interval.writeP99Ms?.toFixed(1) ?? "—"} ms (lab ${prediction.writeP99Ms.toFixed(1)}), read p99 ${interval.readP99Ms?.toFixed(1) ?? "—"} ms, errors ${interval.errors}   `,
      );
      drawn = true;
    },
    stop() {
      if (drawn) process.stderr.write("\n");
    },
  };
}

/** Achieved over target within 10 % counts as reaching it. */
const REACHED = 0.9;

/** This task's access log's writes beside the lab's, in the lab's heatmap rows. */
async function compareWithLab(path: string, lab: DesignResult, schema: KeySchema): Promise<LoadComparison> {
  return compareLoad(lab, await loggedWrites([path]), schema);
}

async function report(
  task: TaskIdentity,
  outcome: TaskOutcome,
  status: RunStatus,
  prediction: SteadyState,
  load: LoadComparison | undefined,
  options: RunOptions,
): Promise<void> {
  const m = outcome.measurement;
  const writeRatio = m.targetWrites > 0 ? m.writes / m.targetWrites : null;
  const readRatio = m.targetReads > 0 ? m.reads / m.targetReads : null;
  const reached = (writeRatio ?? 1) >= REACHED && (readRatio ?? 1) >= REACHED;
  const why = reached
    ? null
    : m.behind > 0
      ? `${m.behind} operations were due while this task had ${options.maxInFlight} requests in flight: the machine (or the store) could not drive the rate`
      : "operations failed or answered late: see errors";
  const drivenS = status.measurement.drivenS;
  const rows = sideBySide(prediction, status.measurement, drivenS, runCpu(cpuFlags(options), status.cluster));
  if (options.json) {
    const { latency: _latency, timeline: _timeline, ...counts } = m;
    await write(
      `${JSON.stringify({
        task,
        status: outcome.status,
        ...(outcome.status === "failed" ? { reason: outcome.reason } : {}),
        resumedFromS: outcome.resumedFromS,
        measured: { ...counts, writeRatio, readRatio, reached, ...(why === null ? {} : { why }) },
        run: {
          runId: status.run.runId,
          writeRatio: status.writeRatio,
          readRatio: status.readRatio,
          errors: status.errors,
          latency: status.latency,
        },
        prediction: rows,
        cluster: status.cluster,
        ...(load === undefined ? {} : { load: describeLoadJson(load) }),
      })}\n`,
    );
    return;
  }
  const pct = (value: number | null) => (value === null ? "—" : `${(value * 100).toFixed(1)} %`);
  await write(
    [
      `task ${task.index} of ${task.count}: ${outcome.status}${outcome.status === "failed" ? ` (${outcome.reason})` : ""}${outcome.resumedFromS > 0 ? `, resumed at ${outcome.resumedFromS.toFixed(0)} s` : ""}`,
      `  writes ${m.writes} of ${m.targetWrites} due (${pct(writeRatio)}); reads ${m.reads} of ${m.targetReads} (${pct(readRatio)}): ${reached ? "target reached within 10 %" : `below target — ${why}`}`,
      `the run so far (every task), the lab's prediction beside it:`,
      formatSideBySide(rows).trimEnd(),
      ...(load === undefined ? [] : describeLoad(load)),
      "",
    ].join("\n"),
  );
}

const percent = (share: number) => `${(share * 100).toFixed(0)} %`;

function describeLoad(load: LoadComparison): string[] {
  return [
    `this task's ${load.writes} logged writes in the lab's heatmap rows (its key ranges): ${load.agree ? "where the lab puts them" : "NOT where the lab puts them"} (${percent(load.distance)} of writes in other rows than the lab's; ${percent(load.allowed)} allowed)`,
    ...load.rows.map(
      (row) =>
        `  [${displayKey(row.start)}, ${row.end === null ? "end" : displayKey(row.end)}): lab ${percent(row.lab)}, run ${percent(row.run)}`,
    ),
    ...(load.buckets === undefined
      ? []
      : [
          `  salt buckets: the busiest carries ${load.buckets.busiestOverEven.toFixed(2)}× an even share (${load.buckets.shares.length} buckets)`,
        ]),
  ];
}

/** The comparison as JSON: keys as text as the heatmap shows them. */
function describeLoadJson(load: LoadComparison) {
  return {
    ...load,
    rows: load.rows.map((row) => ({
      ...row,
      start: displayKey(row.start),
      end: row.end === null ? null : displayKey(row.end),
    })),
  };
}

/** The `observed:` block of the tested run, for the scenario's lab to calibrate from. */
async function writeCalibration(path: string, flags: ClusterCpu, status: RunStatus): Promise<void> {
  const cpu = runCpu(flags, status.cluster);
  if (cpu.hottest === undefined && cpu.average === undefined) throw new Error(NEEDS_CPU);
  const drivenS = status.measurement.drivenS;
  const round = (value: number) => Number(value.toPrecision(4));
  const lines = [
    `# keyspread loadtest ${status.run.runId}: scenario ${status.run.scenario}, design ${status.run.design}, scale ${status.run.scale}, ${status.run.nodes} node(s), ${drivenS.toFixed(0)} s measured.`,
    "# `lab` fits its model to the scenario's FIRST design on these nodes at these rates: paste this block at",
    `# the scenario's top level when the tested design (${status.run.design}) is its first one.`,
    "observed:",
    `  nodes: ${status.run.nodes}`,
    ...(cpu.average === undefined ? [] : [`  averageCpu: ${round(cpu.average)}`]),
    ...(cpu.hottest === undefined ? [] : [`  hottestCpu: ${round(cpu.hottest)}`]),
    `  writesPerS: ${round(status.measurement.writes / Math.max(drivenS, 1e-9))}`,
    `  readsPerS: ${round(status.measurement.reads / Math.max(drivenS, 1e-9))}`,
  ];
  await writeFile(path, `${lines.join("\n")}\n`);
}

interface CalibrateOptions {
  calibrate?: string;
  hottestCpu?: number;
  averageCpu?: number;
}

const NEEDS_CPU =
  "--calibrate needs the cluster's CPU over the run and none was recorded (the emulator has none; on an instance task 0 records Cloud Monitoring's cpu_load and cpu_load_hottest_node): pass --hottest-cpu and/or --average-cpu";

async function statusCommand(options: { table: string; json?: boolean } & CalibrateOptions): Promise<void> {
  const address = bigtableAddress(options.table);
  const store = await BigtableStore.open(storeOptions(address));
  try {
    const status = await readRunStatus(store);
    if (status === undefined) throw new Error(`${formatStoreAddress(address)} holds no load test`);
    if (options.calibrate !== undefined) await writeCalibration(options.calibrate, cpuFlags(options), status);
    if (options.json) {
      const { measurement, ...rest } = status;
      await write(`${JSON.stringify({ ...rest, timeline: measurement.timeline })}\n`);
    } else await write(describeRunStatus(status));
  } finally {
    await store.close();
  }
}

const DELETE_BATCH = 1000;

async function deleteCommand(options: { table: string; yes?: boolean }): Promise<void> {
  const address = bigtableAddress(options.table);
  const store = await BigtableStore.open(storeOptions(address));
  try {
    const status = await readRunStatus(store);
    if (status === undefined) throw new Error(`${formatStoreAddress(address)} holds no load test`);
    const running = status.shares.filter((s) => s.state === "running");
    if (running.length > 0) {
      throw new Error(
        `load test ${status.run.runId} is still running (tasks ${running.map((s) => s.task).join(", ")}); stop it first (SIGTERM its tasks)`,
      );
    }
    const what = status.run.createdTable
      ? `the table ${store.name} (the load test created it)`
      : `the rows load test ${status.run.runId} wrote in ${store.name}, and its run records`;
    if (!options.yes && interactive() && !(await confirm(`delete ${what}?`))) throw new Error("not deleted");
    if (status.run.createdTable) {
      await store.deleteTable();
      await write(`${JSON.stringify({ deleted: "table", table: store.name })}\n`);
      return;
    }
    const marker = Buffer.from(status.run.runId);
    let deleted = 0;
    let batch: StoreMutation[] = [];
    const flush = async () => {
      const { failed } = await store.write(batch);
      if (failed.length > 0)
        throw new Error(
          `${failed.length} row(s) not deleted, first ${failed[0]!.key.toString("hex")}: ${failed[0]!.reason}`,
        );
      deleted += batch.length;
      batch = [];
    };
    for await (const row of store.read([{ start: Buffer.alloc(0), end: RESERVED_PREFIX }])) {
      if (!row.cells.get(LOADTEST_CELL)?.equals(marker)) continue;
      batch.push({ type: "delete", key: row.key });
      if (batch.length >= DELETE_BATCH) await flush();
    }
    batch.push(...runRowKeys(status.run).map((key) => ({ type: "delete" as const, key })));
    await flush();
    await write(`${JSON.stringify({ deleted: "rows", table: store.name, rows: deleted })}\n`);
  } finally {
    await store.close();
  }
}
