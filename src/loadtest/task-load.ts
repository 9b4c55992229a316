/**
 * One task's share of the load, driven through the library: each group's writes for the task's
 * entities at the group's rate × its arrival pattern × the task's share of the entities, rows of
 * the declared size with keys built by the design's schema (`SaltedTable.putMany`), and each read
 * pattern at its rate (`scan` with a limit for latest-N, a window `scan`, `get`) — the calls an
 * application makes, with no special path. Due operations are issued every tick; when the task
 * already has its most requests in flight the rest are counted `behind`, not queued, so the task
 * says when the machine cannot keep up instead of drifting.
 */
import { randomBytes } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import type { FieldValues } from "../keys/types.js";
import type { TaskIdentity } from "../migrate/job/task-identity.js";
import type { ReadPattern } from "../sim/scenario/scenario.js";
import { scramble } from "../sim/scenario/template.js";
import { CompiledRead } from "../sim/workload/reads.js";
import { CompiledGroup } from "../sim/workload/workload.js";
import { codeName } from "../store/bigtable/mutate-rows.js";
import type { PutRow, SaltedTable } from "../table/salted-table.js";
import { type Histogram, percentile, record } from "./latency-histogram.js";
import { errorCode, type Interval, type Measurement, recordError, recordLatency } from "./measurement.js";
import { LOADTEST_CELL, type LoadTestRun } from "./run-record.js";
import { entityShare, type ScaledScenario } from "./scaled-scenario.js";

export interface TaskLoadOptions {
  table: SaltedTable;
  scaled: ScaledScenario;
  task: TaskIdentity;
  run: LoadTestRun;
  /** Requests in flight at most (default 64). */
  maxInFlight?: number;
  /** Seconds between timeline intervals (and checkpoints), on the run's clock (default 5). */
  intervalS?: number;
  now?: () => number;
}

interface DrivenGroup {
  group: CompiledGroup;
  from: number;
  size: number;
  /** The task's share of the group's rate. */
  share: number;
  carry: number;
  serial: number;
}

interface DrivenRead {
  read: CompiledRead;
  spec: ReadPattern;
  driven: DrivenGroup;
  carry: number;
  serial: number;
}

const TICK_MS = 100;
const ROWS_PER_REQUEST = 500;

export class TaskLoad {
  private readonly groups: DrivenGroup[];
  private readonly reads: DrivenRead[];
  private readonly payload: Buffer;
  private readonly marker: Buffer;
  private readonly now: () => number;
  private readonly maxInFlight: number;
  readonly intervalS: number;
  private inFlight = 0;
  private readonly settled = new Set<Promise<void>>();

  constructor(private readonly options: TaskLoadOptions) {
    const { scaled, task, run, table } = options;
    this.now = options.now ?? Date.now;
    this.maxInFlight = options.maxInFlight ?? 64;
    this.intervalS = options.intervalS ?? 5;
    const { scenario, design } = scaled;
    this.groups = scenario.workload.groups.map((spec, index) => {
      const group = new CompiledGroup(table.schema, spec, design, scenario.workload.rowBytes, run.startedAt);
      const { from, to } = entityShare(spec.entities, task.index, task.count);
      // Each task starts its groups' counters apart, so `sequence` fields never repeat across tasks.
      return { group, from, size: to - from, share: (to - from) / spec.entities, carry: 0, serial: index };
    });
    this.reads = scenario.workload.reads.map((spec) => {
      const driven = this.groups.find((g) => g.group.name === spec.group)!;
      return { read: new CompiledRead(spec, driven.group), spec, driven, carry: 0, serial: 0 };
    });
    const rowBytes = Math.max(...this.groups.map((g) => g.group.rowBytes));
    this.payload = randomBytes(rowBytes);
    this.marker = Buffer.from(run.runId);
  }

  /**
   * Drives from now until the run's end (or `signal`), adding to `measurement`; calls `onInterval`
   * at each interval's end (the caller checkpoints it and may stop the run by aborting).
   */
  async drive(
    measurement: Measurement,
    onInterval: (interval: Interval) => Promise<void>,
    signal?: AbortSignal,
  ): Promise<void> {
    const { run } = this.options;
    const endS = run.durationS;
    let lastS = Math.min(this.elapsedS(), endS);
    let interval = openInterval(this.nextBoundary(lastS));
    while (!signal?.aborted) {
      const nowS = Math.min(this.elapsedS(), endS);
      const dt = nowS - lastS;
      if (dt > 0) {
        this.tick(measurement, interval, lastS, dt);
        lastS = nowS;
      }
      // The run's clock, not this attempt's: seconds an attempt was down are not driven again.
      measurement.drivenS = Math.max(measurement.drivenS, nowS);
      if (nowS >= interval.endS || nowS >= endS) {
        await onInterval(closeInterval(interval, nowS));
        interval = openInterval(this.nextBoundary(nowS));
      }
      if (nowS >= endS) break;
      await sleep(TICK_MS, undefined, { signal }).catch(() => {});
    }
    await this.drain();
  }

  private elapsedS(): number {
    return (this.now() - this.options.run.startedAt) / 1000;
  }

  private nextBoundary(s: number): number {
    return (Math.floor(s / this.intervalS + 1e-9) + 1) * this.intervalS;
  }

  private tick(measurement: Measurement, interval: OpenInterval, tS: number, dt: number): void {
    for (const driven of this.groups) {
      if (driven.size === 0) continue;
      const due = driven.group.opsPerS * driven.share * driven.group.multiplier(tS, dt) * dt + driven.carry;
      const count = Math.floor(due);
      driven.carry = due - count;
      for (let at = 0; at < count; at += ROWS_PER_REQUEST) {
        const rows = Math.min(ROWS_PER_REQUEST, count - at);
        measurement.targetWrites += rows;
        interval.targetWrites += rows;
        if (this.inFlight >= this.maxInFlight) {
          measurement.behind += rows;
          continue;
        }
        this.track(this.write(measurement, interval, driven, tS + dt, rows));
      }
    }
    for (const reading of this.reads) {
      if (reading.driven.size === 0) continue;
      const due = reading.read.perS * reading.driven.share * dt + reading.carry;
      const count = Math.floor(due);
      reading.carry = due - count;
      for (let n = 0; n < count; n++) {
        measurement.targetReads++;
        interval.targetReads++;
        if (this.inFlight >= this.maxInFlight) {
          measurement.behind++;
          continue;
        }
        this.track(this.readOnce(measurement, interval, reading, tS + dt));
      }
    }
  }

  private entity(driven: DrivenGroup, serial: number): number {
    return driven.from + (scramble(serial ^ 0x5bd1e995) % driven.size);
  }

  private async write(
    measurement: Measurement,
    interval: OpenInterval,
    driven: DrivenGroup,
    tS: number,
    count: number,
  ): Promise<void> {
    const { task } = this.options;
    const rows: PutRow[] = [];
    for (let n = 0; n < count; n++) {
      const serial = driven.serial * task.count + task.index;
      driven.serial++;
      rows.push({
        values: driven.group.writeValues(this.entity(driven, serial), tS, serial) as FieldValues,
        cells: new Map([
          ["v", this.payload.subarray(0, driven.group.rowBytes)],
          [LOADTEST_CELL, this.marker],
        ]),
      });
    }
    const started = performance.now();
    try {
      const { failed } = await this.options.table.putMany(rows);
      const ms = performance.now() - started;
      const applied = count - failed.length;
      recordLatency(measurement, "write", ms, applied);
      record(interval.writeLatency, ms, applied);
      measurement.writes += applied;
      interval.writes += applied;
      for (const failure of failed) {
        recordError(measurement, errorCode(new Error(failure.reason), codeName));
        interval.errors++;
      }
    } catch (error) {
      recordError(measurement, errorCode(error, codeName), count);
      interval.errors += count;
    }
  }

  private async readOnce(
    measurement: Measurement,
    interval: OpenInterval,
    reading: DrivenRead,
    tS: number,
  ): Promise<void> {
    const { read, driven } = reading;
    const serial = reading.serial++;
    const entity = this.entity(driven, serial ^ 0x27d4eb2d);
    const { table } = this.options;
    const started = performance.now();
    try {
      await readPattern(table, read.group, reading.spec, entity, tS, serial);
      const ms = performance.now() - started;
      recordLatency(measurement, read.name, ms);
      record(interval.readLatency, ms);
      measurement.reads++;
      interval.reads++;
    } catch (error) {
      recordError(measurement, errorCode(error, codeName));
      interval.errors++;
    }
  }

  private track(operation: Promise<void>): void {
    this.inFlight++;
    const done: Promise<void> = operation.finally(() => {
      this.inFlight--;
      this.settled.delete(done);
    });
    this.settled.add(done);
  }

  private async drain(): Promise<void> {
    await Promise.allSettled([...this.settled]);
  }
}

/** One read as an application makes it, through the table's own calls. */
async function readPattern(
  table: SaltedTable,
  group: CompiledGroup,
  spec: ReadPattern,
  entity: number,
  tS: number,
  serial: number,
): Promise<void> {
  switch (spec.kind) {
    case "latest": {
      const rows = Math.ceil(spec.limit / group.pointsPerRow - 1e-9);
      await Promise.all(group.entityQueries(entity, {}).map((query) => table.latest(query, rows)));
      return;
    }
    case "scan": {
      const field = group.timeFieldAfterPrefix(spec);
      const range = { field, gte: group.timeValue(tS - spec.window), lte: group.timeValue(tS) };
      await Promise.all(group.entityQueries(entity, { range }).map((query) => table.scan(query).toArray()));
      return;
    }
    case "get": {
      const ageS = (scramble(serial) / 2 ** 32) * spec.window;
      await table.get(group.writeValues(entity, tS - ageS, serial));
      return;
    }
  }
}

interface OpenInterval {
  endS: number;
  writes: number;
  targetWrites: number;
  reads: number;
  targetReads: number;
  errors: number;
  writeLatency: Histogram;
  readLatency: Histogram;
}

function openInterval(endS: number): OpenInterval {
  return {
    endS,
    writes: 0,
    targetWrites: 0,
    reads: 0,
    targetReads: 0,
    errors: 0,
    writeLatency: {},
    readLatency: {},
  };
}

function closeInterval(open: OpenInterval, atS: number): Interval {
  return {
    atS: Math.min(open.endS, atS),
    writes: open.writes,
    targetWrites: open.targetWrites,
    reads: open.reads,
    targetReads: open.targetReads,
    writeP99Ms: percentile(open.writeLatency, 99),
    readP99Ms: percentile(open.readLatency, 99),
    errors: open.errors,
  };
}
