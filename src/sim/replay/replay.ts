/**
 * What-if replay: recorded operations (an access log) driven through the simulator under the
 * current key and under candidate keys. Each record's key is decoded with the current schema and
 * re-encoded under every candidate; the cluster then sees the recorded operations at their recorded
 * times, scaled up by the log's sample rate. Pure: records arrive one at a time (the caller streams
 * the file), and memory holds one step of them.
 */

import type { AccessRecord } from "../../access-log/access-record.js";
import { isPrintableAscii } from "../../keys/bytes.js";
import type { FieldValues, KeySchema } from "../../keys/types.js";
import { clientCores } from "../client/client-cores.js";
import { resolveModel } from "../cluster/model.js";
import type { ModelEnd } from "../cluster/model-constants.js";
import { TabletMap } from "../cluster/tablets.js";
import { Engine, type EngineOutput } from "../engine/engine.js";
import type { ReadSummary } from "../engine/measurements.js";
import { type Operation, OperationLoad } from "../load/operation-load.js";
import type { DesignResult } from "../results/results.js";
import { AUTOSCALER_CPU_TARGET, summarize, warmUp } from "../results/summary.js";
import { validateScenario } from "../scenario/scenario.js";
import { pointReadStart, writeKey } from "../workload/write-shard-keys.js";

export interface ReplayDesign {
  name: string;
  schema: KeySchema;
}

export interface ReplayOptions {
  nodes: number;
  storage?: "ssd" | "hdd";
  /** Epoch ms of the first record and the span of the log, in seconds (from a first pass over it). */
  startMs: number;
  durationS: number;
  /** Share of operations the log recorded (a 1 % sample is 0.01): each record stands for 1/R operations. */
  sampleRate?: number;
  /** Records in the log (from the first pass): a sparse log's records are spread over several steps. */
  records?: number;
  stepS?: number;
  sampleS?: number;
  /** Bytes of a row a scan returns, for records that give neither rows nor bytes (default 1024). */
  rowBytes?: number;
  pricePerNodeHour?: number;
  modelEnd?: ModelEnd;
  onStep?: (doneS: number) => void;
}

/** Records the current schema could not read, per reason (each with its first keys). */
export interface Undecodable {
  count: number;
  reasons: { reason: string; count: number; keys: string[] }[];
}

export interface ReplayResult {
  designs: DesignResult[];
  records: number;
  /** Records dated before the step being replayed (a log slightly out of order): counted in that step. */
  late: number;
  undecodable: Undecodable;
}

const READ_PATTERNS: Pick<ReadSummary, "name" | "kind">[] = [
  { name: "point reads", kind: "get" },
  { name: "scans", kind: "scan" },
];
const POINT_READS = 0;
const SCANS = 1;
const EXAMPLE_KEYS = 3;
/**
 * A step should hold about this many records: a sparse log (a small sample) has each record stand
 * for many operations, which in one step would look like a burst; spread over a few steps it keeps
 * the rate the log recorded (at the cost of time resolution, never above a few minutes).
 */
const RECORDS_PER_STEP = 200;
const MAX_SPREAD_S = 300;

interface Lane {
  design: ReplayDesign;
  load: OperationLoad;
  engine: Engine;
  tablets: TabletMap;
  /** The operations of the last `spread` steps, one list a step (the newest last). */
  recent: Operation[][];
  /** Range reads per read, summed over reads of each pattern (the fan-out the candidate gives them). */
  fanout: { ranges: number; reads: number; rows: number }[];
}

export class Replay {
  private readonly lanes: Lane[];
  private readonly stepS: number;
  private readonly weight: number;
  /** Steps each record's operations are spread over. */
  private readonly spread: number;
  private readonly rowBytes: number;
  private step = 0;
  private records = 0;
  private late = 0;
  /** Writes replayed onto candidate designs so far: their write shards take them in turn. */
  private shardTurn = 0;
  private readonly undecodable = new Map<string, { count: number; keys: string[] }>();
  private readonly model;
  private readonly steadyFromS: number;

  constructor(
    private readonly current: ReplayDesign,
    candidates: readonly ReplayDesign[],
    private readonly options: ReplayOptions,
  ) {
    this.stepS = options.stepS ?? 1;
    const sampleRate = options.sampleRate ?? 1;
    if (!(sampleRate > 0 && sampleRate <= 1))
      throw new Error(`sample rate ${sampleRate}: expected a share of operations in (0, 1]`);
    const recordsPerStep =
      ((options.records ?? Number.POSITIVE_INFINITY) / Math.max(options.durationS, 1)) * this.stepS;
    this.spread = Math.min(
      Math.max(1, Math.floor(MAX_SPREAD_S / this.stepS)),
      Math.max(1, Math.ceil(RECORDS_PER_STEP / recordsPerStep)),
    );
    this.weight = 1 / sampleRate / this.spread;
    this.rowBytes = options.rowBytes ?? 1024;
    // The model's constants come from a scenario of the replay's cluster (no workload of its own).
    const scenario = validateScenario({
      name: "replay",
      cluster: { nodes: options.nodes, storage: options.storage ?? "ssd" },
      workload: { groups: [{ name: "log", entities: 1, fields: {}, writesPerS: 1 }] },
      designs: [{ name: current.name, schema: current.schema.spec }],
    });
    this.model = resolveModel(scenario, scenario.designs[0]!, options.modelEnd ?? "default");
    const durationS = Math.max(this.stepS, Math.ceil(options.durationS / this.stepS) * this.stepS);
    this.steadyFromS = warmUp(this.model, durationS).steadyFromS;
    this.lanes = [current, ...candidates].map((design) => this.lane(design, durationS));
  }

  /** One recorded operation; records should come in time order (late ones count in the current step). */
  add(record: AccessRecord): void {
    this.records++;
    const step = Math.floor((record.tsMs - this.options.startMs) / 1000 / this.stepS);
    if (step < this.step) this.late++;
    while (step > this.step && !this.lanes[0]!.engine.done) this.advance();
    let values: Record<string, unknown> | undefined;
    try {
      values = this.current.schema.decode(record.key).values;
    } catch (error) {
      this.countUndecodable(record.key, (error as Error).message);
      return;
    }
    for (const lane of this.lanes) {
      const op = this.operation(lane, record, values as FieldValues);
      if (op) lane.recent[lane.recent.length - 1]!.push(op);
    }
  }

  finish(): ReplayResult {
    while (!this.lanes[0]!.engine.done) this.advance();
    return {
      designs: this.lanes.map((lane) => this.result(lane)),
      records: this.records,
      late: this.late,
      undecodable: {
        count: [...this.undecodable.values()].reduce((sum, each) => sum + each.count, 0),
        reasons: [...this.undecodable.entries()].map(([reason, each]) => ({ reason, ...each })),
      },
    };
  }

  private lane(design: ReplayDesign, durationS: number): Lane {
    const load = new OperationLoad(this.model.cost);
    const schema = design.schema;
    // A salted table is created pre-split at its buckets, dealt round-robin; an unsalted one starts as one tablet.
    const boundaries =
      schema.bucketCount > 1
        ? schema
            .plan({})
            .ranges.map((range) => range.start)
            .filter((start) => start.length > 0)
        : [];
    const tablets = new TabletMap(
      boundaries,
      (index) => index % this.options.nodes,
      0,
      boundaries.length > 0,
    );
    const fanout = READ_PATTERNS.map(() => ({ ranges: 0, reads: 0, rows: 0 }));
    const engine = new Engine({
      tablets,
      generator: load,
      nodes: this.options.nodes,
      durationS,
      stepS: this.stepS,
      sampleS: this.options.sampleS ?? 60,
      tabletSettings: this.model.tablets,
      latency: this.model.latency,
      readPatterns: READ_PATTERNS.map((pattern) => ({
        ...pattern,
        perS: 0,
        fanout: 1,
        rowsReadPerRead: 0,
        rowsReturnedPerRead: 0,
      })),
      judged: [{ fromS: this.steadyFromS, toS: durationS }],
      ...(this.options.onStep && design === this.current ? { onStep: this.options.onStep } : {}),
    });
    return { design, load, engine, tablets, recent: [[]], fanout };
  }

  /** The record as an operation on this lane's table: its key under the lane's schema; a scan as the ranges the schema plans for it. */
  private operation(lane: Lane, record: AccessRecord, values: FieldValues): Operation | null {
    const own = lane.design === this.current;
    if (record.op === "write") {
      const key = own ? record.key : writeKey(lane.design.schema, values, this.shardTurn++);
      return {
        kind: "write",
        key,
        bytes: record.bytes > 0 ? record.bytes : this.rowBytes,
        weight: this.weight,
      };
    }
    const pattern = record.op === "scan" ? SCANS : POINT_READS;
    const starts =
      pattern === POINT_READS
        ? [own ? record.key : pointReadStart(lane.design.schema, values)]
        : own
          ? [record.key]
          : lane.design.schema
              .plan({ eq: entityOf(lane.design.schema, values) })
              .ranges.map((range) => range.start);
    const rows =
      pattern === POINT_READS ? 1 : Math.max(1, record.rows ?? Math.round(record.bytes / this.rowBytes));
    const tally = lane.fanout[pattern]!;
    const stands = this.weight * this.spread;
    tally.ranges += starts.length * stands;
    tally.reads += stands;
    tally.rows += rows * stands;
    return {
      kind: "read",
      pattern,
      starts,
      rowsPerRange: rows / starts.length,
      rowBytes: pattern === POINT_READS && record.bytes > 0 ? record.bytes : this.rowBytes,
      weight: this.weight,
    };
  }

  private advance(): void {
    for (const lane of this.lanes) {
      lane.load.feed(lane.recent.flat());
      lane.engine.advance();
      if (lane.recent.length === this.spread) lane.recent.shift();
      lane.recent.push([]);
    }
    this.step++;
  }

  private countUndecodable(key: Buffer, reason: string): void {
    const entry = this.undecodable.get(reason) ?? { count: 0, keys: [] };
    entry.count++;
    if (entry.keys.length < EXAMPLE_KEYS) entry.keys.push(printable(key));
    this.undecodable.set(reason, entry);
  }

  private result(lane: Lane): DesignResult {
    const engine: EngineOutput = lane.engine.output();
    const durationS = this.step * this.stepS;
    engine.reads.forEach((read, pattern) => {
      const tally = lane.fanout[pattern]!;
      read.perS = tally.reads / durationS;
      read.fanout = tally.reads > 0 ? tally.ranges / tally.reads : 0;
      read.rowsReadPerRead = tally.reads > 0 ? tally.rows / tally.reads : 0;
      read.rowsReturnedPerRead = read.rowsReadPerRead;
    });
    const schema = lane.design.schema;
    return {
      design: lane.design.name,
      schema: { name: schema.spec.name, fingerprint: schema.fingerprint, bucketCount: schema.bucketCount },
      nodes: this.options.nodes,
      nodeScalingFactor: 1,
      // A replay builds each design's table from the log's first write on.
      table: "new",
      storage: this.model.storage,
      costPerHour: this.options.nodes * (this.options.pricePerNodeHour ?? 0.65),
      mode: "exact",
      modelEnd: this.model.end,
      durationS,
      stepS: this.stepS,
      summary: summarize({
        engine,
        model: this.model,
        nodes: this.options.nodes,
        durationS,
        writeRowBytes: this.rowBytes,
        storedBytes: engine.storedBytes,
        retentionS: null,
        largestRow: null,
        plan: { offsetS: 0, cycle: null },
        cpuTarget: AUTOSCALER_CPU_TARGET,
      }),
      clientCores: clientCores(engine.reads, this.model.end),
      timeline: engine.timeline,
      loadSteps: engine.loadSteps,
    };
  }
}

/**
 * The fields a scan of one entity binds: those before the first timestamp or sequence-like field
 * (the field a scan ranges over), as a latest-N or a window read of one entity does.
 */
function entityOf(schema: KeySchema, values: FieldValues): Record<string, never> {
  const eq: Record<string, unknown> = {};
  for (const field of schema.fields) {
    if (field.codec.type === "timestamp") break;
    eq[field.name] = values[field.name];
  }
  return eq as Record<string, never>;
}

const printable = (key: Buffer) =>
  isPrintableAscii(key) ? key.toString("latin1") : `hex:${key.toString("hex")}`;
