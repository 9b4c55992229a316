/**
 * The cluster loop shared by both engines. Each step the channels' multipliers scale the static
 * load each node carries and the dynamic load lands on tablets; nodes sum it into CPU, latency and
 * shedding follow from utilisation. Every split check, hot or large tablets split; every balancer
 * period, cold neighbours merge and the balancer moves load. Per-tablet work happens only at those
 * checks and at samples (tablets fold their static load in from the channels' integrals), so a
 * step costs O(nodes), and a run of tens of thousands of tablets stays fast.
 */

import FlatQueue from "flatqueue";
import { keySuccessor } from "../../keys/bytes.js";
import { mean } from "../../stats/mean.js";
import { medianOfSorted } from "../../stats/median.js";
import type { KeyRangeLoad, LoadStep } from "../../viz/matrix/key-load.js";
import { closeSharePerPeriod, rebalance } from "../cluster/balancer.js";
import { cdfAtEdges, LATENCY_EDGES_MS, LatencyHistogram, shedShare } from "../cluster/latency.js";
import type { LatencySettings, TabletSettings } from "../cluster/model.js";
import {
  BYTES,
  COST,
  QUANTITIES,
  RANGE_READS,
  ROWS,
  STORED,
  type Tablet,
  type TabletMap,
  WRITES,
} from "../cluster/tablets.js";
import type { DynamicSink, LoadGenerator } from "../load/load.js";
import { findSplitPoint } from "../load/split-point.js";
import type { Span } from "../scenario/cycle.js";
import type { JudgedPoint, ReadSummary, TabletActivity, TimelinePoint } from "./measurements.js";

export interface EngineInput {
  tablets: TabletMap;
  generator: LoadGenerator;
  nodes: number;
  durationS: number;
  stepS: number;
  sampleS: number;
  tabletSettings: TabletSettings;
  latency: LatencySettings;
  readPatterns: Omit<ReadSummary, "p50Ms" | "p99Ms" | "shedShare">[];
  /**
   * The run's time the verdict is taken over (sorted, disjoint): after the warm-up, or a cycle's
   * peaks. It is sampled on its own, at the sample interval cut at each span's end, so a burst
   * shorter than a sample is seen whole; its latency is kept apart.
   */
  judged: readonly Span[];
  onStep?: (doneS: number) => void;
}

export interface EngineOutput {
  timeline: TimelinePoint[];
  loadSteps: LoadStep[];
  /** The judged time's samples: each at most a sample interval, cut at the end of each judged span. */
  judged: JudgedPoint[];
  writes: { perS: number; shedShare: number; p50Ms: number; p99Ms: number };
  reads: ReadSummary[];
  /** Latency over the judged time only. */
  steady: { writeP99Ms: number; reads: { name: string; p99Ms: number; shedShare: number }[] };
  tablets: TabletActivity;
  /** Bytes the run wrote into the table. */
  storedBytes: number;
}

/** Latency is estimated every this many simulated seconds (it changes slowly; the cost is per node). */
const LATENCY_EVERY_S = 10;
const SPLIT_RETRY_S = 60;

export function runEngine(input: EngineInput): EngineOutput {
  const engine = new Engine(input);
  while (!engine.done) engine.advance();
  return engine.output();
}

/**
 * A run, one step at a time, so a caller can feed each step's load as it comes (a replayed log):
 * the nodes' CPU, shedding and latency per step; splits at each check, merges and moves at each
 * balancer period; the time series and key-range load at each sample.
 */
export class Engine {
  private readonly cluster: ClusterLoad;
  private readonly steps: number;
  private readonly every: { sample: number; check: number; balance: number; latency: number };
  private readonly balanceSettings: Parameters<typeof rebalance>[3];
  private readonly initialTablets: number;
  private readonly whole: Latencies;
  private readonly steady: Latencies;
  private readonly window: SampleWindow;
  private readonly judgedWindow: SampleWindow;
  private readonly judgedSpans: { first: number; end: number }[];
  private readonly timeline: TimelinePoint[] = [];
  private readonly judged: JudgedPoint[] = [];
  private readonly loadSteps: LoadStep[] = [];
  private writes = { total: 0, shed: 0 };
  private moves = 0;
  private step = 0;

  constructor(private readonly input: EngineInput) {
    const { stepS, tabletSettings: settings } = input;
    this.steps = Math.max(1, Math.round(input.durationS / stepS));
    const every = (seconds: number) => Math.max(1, Math.round(seconds / stepS));
    this.every = {
      sample: every(input.sampleS),
      check: every(settings.splitSustain),
      balance: every(settings.balancePeriod),
      latency: every(LATENCY_EVERY_S),
    };
    this.balanceSettings = {
      imbalance: settings.imbalance,
      minCpuGap: settings.minCpuGap,
      closeShare: closeSharePerPeriod(this.every.balance * stepS, settings.rebalanceTime),
    };
    this.initialTablets = input.tablets.tablets.length;
    this.cluster = new ClusterLoad(input.tablets, input.generator, input.nodes, settings);
    this.whole = new Latencies(input.readPatterns.length);
    this.steady = new Latencies(input.readPatterns.length);
    this.window = new SampleWindow(input.nodes);
    this.judgedWindow = new SampleWindow(input.nodes);
    this.judgedSpans = input.judged
      .map((span) => ({
        first: Math.ceil(span.fromS / stepS - 1e-9),
        end: Math.ceil(span.toS / stepS - 1e-9),
      }))
      .filter((span) => span.end > span.first);
  }

  get done(): boolean {
    return this.step >= this.steps;
  }

  /** Simulates the next step: its load (static, and what the generator emits for it), then what the cluster does about it. */
  advance(): void {
    const { stepS } = this.input;
    const step = this.step++;
    const tS = step * stepS;
    const nowS = tS + stepS;
    this.cluster.step(tS, stepS);
    this.account(tS, stepS);
    const span = this.judgedSpans.find((each) => step >= each.first && step < each.end);
    if (span) this.judgedWindow.add(this.cluster, stepS, tS);
    const latency: { phase: Latencies; weightS: number }[] = [];
    if (step % this.every.latency === 0)
      latency.push({ phase: this.whole, weightS: Math.min(this.every.latency, this.steps - step) * stepS });
    if (span && (step - span.first) % this.every.latency === 0)
      latency.push({ phase: this.steady, weightS: Math.min(this.every.latency, span.end - step) * stepS });
    if (latency.length > 0) this.recordLatency(latency);
    if ((step + 1) % this.every.check === 0) this.cluster.splitTablets(nowS);
    if ((step + 1) % this.every.balance === 0)
      this.moves += this.cluster.balance(this.balanceSettings, this.every.balance * stepS, nowS);
    if ((step + 1) % this.every.sample === 0 || step === this.steps - 1) this.sample();
    if (
      span &&
      (this.judgedWindow.seconds >= this.input.sampleS - 1e-9 ||
        step + 1 === span.end ||
        step === this.steps - 1)
    ) {
      this.judged.push({
        ...this.judgedWindow.point(this.input.tablets),
        durationS: this.judgedWindow.seconds,
      });
      this.judgedWindow.reset(nowS);
    }
    this.input.onStep?.(nowS);
  }

  output(): EngineOutput {
    const { input, whole, steady } = this;
    const { tablets } = input;
    return {
      timeline: this.timeline,
      loadSteps: this.loadSteps,
      judged: this.judged,
      writes: {
        perS: this.writes.total / (this.step * input.stepS),
        shedShare: this.writes.total > 0 ? this.writes.shed / this.writes.total : 0,
        p50Ms: whole.write.quantile(0.5),
        p99Ms: whole.write.quantile(0.99),
      },
      reads: input.readPatterns.map((pattern, index) => ({
        ...pattern,
        p50Ms: whole.reads[index]!.quantile(0.5),
        p99Ms: whole.reads[index]!.quantile(0.99),
        shedShare: whole.readShedShare(index),
      })),
      steady: {
        writeP99Ms: steady.write.quantile(0.99),
        reads: input.readPatterns.map((pattern, index) => ({
          name: pattern.name,
          p99Ms: steady.reads[index]!.quantile(0.99),
          shedShare: steady.readShedShare(index),
        })),
      },
      tablets: {
        initial: this.initialTablets,
        final: tablets.tablets.length,
        loadSplits: tablets.splits.load,
        sizeSplits: tablets.splits.size,
        merges: tablets.merges,
        moves: this.moves,
      },
      storedBytes: this.cluster.storedBytes(),
    };
  }

  /** Writes asked for and shed over the step, and the sample window's node CPU. */
  private account(tS: number, stepS: number): void {
    const { nodeCost, nodeWrites } = this.cluster;
    for (let n = 0; n < this.input.nodes; n++) {
      this.writes.total += nodeWrites[n]! * stepS;
      this.writes.shed += nodeWrites[n]! * shedShare(nodeCost[n]!) * stepS;
    }
    this.window.add(this.cluster, stepS, tS);
  }

  /** Latency of this step's cluster into each phase, weighted by the time it stands for there. */
  private recordLatency(targets: readonly { phase: Latencies; weightS: number }[]): void {
    const { latency } = this.input;
    const { nodeCost, nodeWrites } = this.cluster;
    for (let n = 0; n < this.input.nodes; n++) {
      const served = nodeWrites[n]! * (1 - shedShare(nodeCost[n]!));
      const cdf = cdfAtEdges(nodeCost[n]!, latency.serviceMs, latency);
      for (const { phase, weightS } of targets) phase.write.add(served * weightS, cdf);
    }
    recordReadLatency(this.cluster, latency, targets);
  }

  /** Closes the sample window: one time-series point and the key ranges' load. */
  private sample(): void {
    const { window } = this;
    const point = window.point(this.input.tablets);
    this.timeline.push(point);
    this.loadSteps.push(this.cluster.sample(point.nodeCpu, window.start, window.seconds));
    window.reset(window.start + window.seconds);
  }
}

/** Node CPU and writes asked and shed over a sample window, summed step by step. */
class SampleWindow {
  private readonly cpu: Float64Array;
  private writes = 0;
  private shed = 0;
  start = 0;
  seconds = 0;

  constructor(nodes: number) {
    this.cpu = new Float64Array(nodes);
  }

  add(cluster: ClusterLoad, stepS: number, startS: number): void {
    if (this.seconds === 0) this.start = startS;
    const { nodeCost, nodeWrites } = cluster;
    for (let n = 0; n < this.cpu.length; n++) {
      this.writes += nodeWrites[n]! * stepS;
      this.shed += nodeWrites[n]! * shedShare(nodeCost[n]!) * stepS;
      this.cpu[n]! += nodeCost[n]! * stepS;
    }
    this.seconds += stepS;
  }

  point(tablets: TabletMap): TimelinePoint {
    const nodeCpu = Array.from(this.cpu, (sum) => sum / this.seconds);
    const sorted = [...nodeCpu].sort((a, b) => a - b);
    return {
      t: this.start,
      nodeCpu,
      hottestNodeCpu: sorted[sorted.length - 1]!,
      medianNodeCpu: medianOfSorted(sorted),
      averageNodeCpu: mean(nodeCpu),
      tablets: tablets.tablets.length,
      writesPerS: this.writes / this.seconds,
      servedWritesPerS: (this.writes - this.shed) / this.seconds,
      shedWriteShare: this.writes > 0 ? this.shed / this.writes : 0,
    };
  }

  reset(startS: number): void {
    this.cpu.fill(0);
    this.writes = 0;
    this.shed = 0;
    this.start = startS;
    this.seconds = 0;
  }
}

/**
 * The tablets' load and the nodes' sums of it. Static load is kept per node and channel, so a
 * step multiplies channels by nodes; tablets fold it into their odometers only when read. A split
 * check reads only the tablets that could split: those whose static load could pass the threshold
 * at its channels' peaks, those dynamic load touched, and those whose bytes may have reached the
 * size threshold (each tablet is queued for when that can first happen at its peak write rate).
 */
class ClusterLoad implements DynamicSink {
  readonly nodeCost: Float64Array;
  readonly nodeWrites: Float64Array;
  private readonly channels: number;
  private readonly multipliers: Float64Array;
  private readonly peaks: Float64Array;
  /** Each channel's multiplier summed over simulated seconds. */
  private readonly integrals: Float64Array;
  /** Static cost and writes per node and channel at multiplier 1 (`node × channels + channel`). */
  private readonly staticCost: Float64Array;
  private readonly staticWrites: Float64Array;
  private readonly loadWatch = new Set<Tablet>();
  private readonly touched = new Set<Tablet>();
  private readonly sizeDue = new FlatQueue<Tablet>();
  private stepS = 1;
  private nowS = 0;

  constructor(
    readonly tablets: TabletMap,
    readonly generator: LoadGenerator,
    readonly nodes: number,
    private readonly settings: TabletSettings,
  ) {
    this.channels = generator.channels;
    this.multipliers = new Float64Array(this.channels);
    this.peaks = new Float64Array(this.channels);
    generator.peakMultipliers(this.peaks);
    this.integrals = new Float64Array(this.channels);
    this.nodeCost = new Float64Array(nodes);
    this.nodeWrites = new Float64Array(nodes);
    this.staticCost = new Float64Array(nodes * this.channels);
    this.staticWrites = new Float64Array(nodes * this.channels);
    tablets.tablets.forEach((tablet, index) => {
      this.setRates(tablet, tablets.end(index));
    });
    this.sumNodes();
  }

  step(tS: number, stepS: number): void {
    this.stepS = stepS;
    this.nowS = tS + stepS;
    const { channels, multipliers } = this;
    this.generator.multipliers(tS, stepS, multipliers);
    for (let c = 0; c < channels; c++) this.integrals[c]! += multipliers[c]! * stepS;
    for (let n = 0; n < this.nodes; n++) {
      let cost = 0;
      let writes = 0;
      for (let c = 0; c < channels; c++) {
        cost += multipliers[c]! * this.staticCost[n * channels + c]!;
        writes += multipliers[c]! * this.staticWrites[n * channels + c]!;
      }
      this.nodeCost[n] = cost;
      this.nodeWrites[n] = writes;
    }
    this.generator.emitDynamic(tS, stepS, this.tablets, this);
  }

  add(
    index: number,
    writes: number,
    rangeReads: number,
    rows: number,
    bytes: number,
    stored: number,
    cost: number,
  ): void {
    const tablet = this.tablets.tablets[index]!;
    const odometer = this.tablets.columns.odometer;
    const row = tablet.slot * QUANTITIES;
    const dt = this.stepS;
    odometer[row + WRITES]! += writes * dt;
    odometer[row + RANGE_READS]! += rangeReads * dt;
    odometer[row + ROWS]! += rows * dt;
    odometer[row + BYTES]! += bytes * dt;
    odometer[row + STORED]! += stored * dt;
    odometer[row + COST]! += cost * dt;
    this.nodeCost[tablet.node]! += cost;
    this.nodeWrites[tablet.node]! += writes;
    this.touched.add(tablet);
  }

  /**
   * Splits tablets that carried more operations or CPU than the load thresholds since their last
   * check (at the point that halves their cost), or hold more than the size threshold (at the
   * point that halves their bytes).
   */
  splitTablets(nowS: number): void {
    const { settings } = this;
    const splits: Parameters<TabletMap["split"]>[0][number][] = [];
    const checked = new Set([...this.loadWatch, ...this.touched]);
    for (const { item } of popDue(this.sizeDue, nowS)) if (item.sizeDueS <= nowS) checked.add(item);
    this.touched.clear();
    for (const tablet of checked) {
      if (!tablet.alive) continue;
      this.sync(tablet);
      const sinceS = nowS - tablet.checkedS;
      const ops = this.read(tablet, WRITES) + this.read(tablet, RANGE_READS);
      const cost = this.read(tablet, COST);
      const hot =
        sinceS > 0 &&
        ((ops - tablet.atCheck) / sinceS > settings.splitOpsPerS ||
          (cost - tablet.atCheckCost) / sinceS > settings.splitCpuShare);
      tablet.atCheck = ops;
      tablet.atCheckCost = cost;
      tablet.checkedS = nowS;
      const end = this.tablets.end(this.tablets.find(tablet.start));
      let layers: ReturnType<LoadGenerator["layers"]> | undefined;
      const where = () => {
        layers ??= this.generator.layers(this.multipliers, this.integrals, tablet.start, end);
        return layers;
      };
      if (hot && nowS >= tablet.loadRetryS) {
        const point = findSplitPoint(tablet.start, end, where().load, where());
        if (point) {
          splits.push({ tablet, point, reason: "load" });
          continue;
        }
        tablet.loadRetryS = nowS + SPLIT_RETRY_S;
      }
      const stored = this.read(tablet, STORED);
      if (stored > Math.max(settings.splitBytes, tablet.sizeRetryBytes)) {
        const point = findSplitPoint(tablet.start, end, where().bytes, where());
        if (point) {
          splits.push({ tablet, point, reason: "size" });
          continue;
        }
        tablet.sizeRetryBytes = stored * 2;
      }
      this.scheduleSize(tablet);
    }
    const rights = this.tablets.split(splits, nowS);
    splits.forEach(({ tablet }, k) => {
      const right = rights[k]!;
      right.checkedS = nowS;
      this.setRates(tablet, right.start);
      this.setRates(right, this.tablets.end(this.tablets.find(right.start)));
    });
  }

  /** Closes the balancer period: cold neighbours merge, then load moves. Returns the moves. */
  balance(balance: Parameters<typeof rebalance>[3], periodS: number, nowS: number): number {
    this.syncAll();
    const odometer = this.tablets.columns.odometer;
    for (const tablet of this.tablets.tablets) {
      const row = tablet.slot * QUANTITIES;
      const cost = odometer[row + COST]!;
      const ops = odometer[row + WRITES]! + odometer[row + RANGE_READS]!;
      tablet.lastPeriodCost = cost - tablet.atPeriodCost;
      tablet.lastPeriodOps = ops - tablet.atPeriodOps;
      tablet.atPeriodCost = cost;
      tablet.atPeriodOps = ops;
    }
    this.mergeColdNeighbours(periodS, nowS);
    const moves = rebalance(this.tablets.tablets, this.nodes, periodS, balance);
    this.sumNodes();
    return moves;
  }

  /** The per-tablet load of the sample window, at most MAX_RANGES key ranges. */
  sample(nodeCpu: number[], t: number, durationS: number): LoadStep {
    this.syncAll();
    const list = this.tablets.tablets;
    const { odometer, atSample } = this.tablets.columns;
    const perRange = Math.ceil(list.length / MAX_RANGES);
    const ranges: KeyRangeLoad[] = [];
    const sums = new Float64Array(QUANTITIES);
    // The table holds no rows outside the keys written: the edge tablets' load is drawn within them.
    const written = this.generator.writtenKeys();
    for (let first = 0; first < list.length; first += perRange) {
      const last = Math.min(first + perRange, list.length) - 1;
      sums.fill(0);
      let storedBytes = 0;
      let busiest = list[first]!;
      let busiestOps = -1;
      for (let index = first; index <= last; index++) {
        const tablet = list[index]!;
        const row = tablet.slot * QUANTITIES;
        const ops =
          odometer[row + WRITES]! -
          atSample[row + WRITES]! +
          odometer[row + RANGE_READS]! -
          atSample[row + RANGE_READS]!;
        for (let q = 0; q < QUANTITIES; q++) {
          sums[q]! += odometer[row + q]! - atSample[row + q]!;
          atSample[row + q] = odometer[row + q]!;
        }
        if (ops > busiestOps) {
          busiest = tablet;
          busiestOps = ops;
        }
        storedBytes += odometer[row + STORED]!;
      }
      const { start, end } = withinWritten(list[first]!.start, this.tablets.end(last), written);
      ranges.push({
        start,
        end,
        readsPerS: sums[RANGE_READS]! / durationS,
        writesPerS: sums[WRITES]! / durationS,
        scannedRowsPerS: sums[ROWS]! / durationS,
        bytesPerS: sums[BYTES]! / durationS,
        // Lets the heatmap measure a band's width by data held, as Key Visualizer does.
        storedBytes,
        node: busiest.node,
        nodeCpu: nodeCpu[busiest.node]!,
      });
    }
    return { t, durationS, ranges };
  }

  /** Bytes stored over the whole table. */
  storedBytes(): number {
    this.syncAll();
    return this.tablets.tablets.reduce((sum, tablet) => sum + this.read(tablet, STORED), 0);
  }

  readSamples() {
    return this.generator.readSamples(this.tablets);
  }

  private mergeColdNeighbours(periodS: number, nowS: number): void {
    const { settings } = this;
    const coldOps = settings.mergeLoadShare * settings.splitOpsPerS * periodS;
    this.tablets.mergeEach(
      (left, right) =>
        !right.initialBoundary &&
        nowS - left.bornS >= settings.mergeAge &&
        nowS - right.bornS >= settings.mergeAge &&
        left.lastPeriodOps + right.lastPeriodOps < coldOps &&
        this.read(left, STORED) + this.read(right, STORED) < settings.splitBytes / 2,
      (joined, gone) => {
        this.loadWatch.delete(gone);
        this.watch(joined);
      },
    );
  }

  /** A tablet's odometer reading of one quantity (synced by the caller). */
  private read(tablet: Tablet, quantity: number): number {
    return this.tablets.columns.odometer[tablet.slot * QUANTITIES + quantity]!;
  }

  /** The tablet's static rates of `quantity` summed over channels, each at its peak multiplier. */
  private peakRate(tablet: Tablet, ...quantities: number[]): number {
    const { rates } = this.tablets.columns;
    const row = tablet.slot * this.channels * QUANTITIES;
    let sum = 0;
    for (let c = 0; c < this.channels; c++) {
      for (const quantity of quantities) sum += this.peaks[c]! * rates[row + c * QUANTITIES + quantity]!;
    }
    return sum;
  }

  /** Sets a tablet's static rates for `[start, end)` and which checks watch it. */
  private setRates(tablet: Tablet, end: Buffer | null): void {
    const { rates, syncedAt } = this.tablets.columns;
    const width = this.channels * QUANTITIES;
    const row = rates.subarray(tablet.slot * width, (tablet.slot + 1) * width);
    row.fill(0);
    this.generator.staticRates(tablet.start, end, row);
    syncedAt.set(this.integrals, tablet.slot * this.channels);
    this.watch(tablet);
  }

  /** Watches a tablet for load splits if its static load could pass a threshold, and queues its next size check. */
  private watch(tablet: Tablet): void {
    const hot =
      this.peakRate(tablet, WRITES, RANGE_READS) > this.settings.splitOpsPerS ||
      this.peakRate(tablet, COST) > this.settings.splitCpuShare;
    if (hot) this.loadWatch.add(tablet);
    else this.loadWatch.delete(tablet);
    this.scheduleSize(tablet);
  }

  /** Queues the tablet for when its bytes can first reach the size threshold at its peak static write rate. */
  private scheduleSize(tablet: Tablet): void {
    const peakStored = this.peakRate(tablet, STORED);
    if (peakStored <= 0) {
      tablet.sizeDueS = Number.POSITIVE_INFINITY;
      return;
    }
    const missing = Math.max(this.settings.splitBytes, tablet.sizeRetryBytes) - this.read(tablet, STORED);
    tablet.sizeDueS = this.nowS + Math.max(0, missing / peakStored);
    this.sizeDue.push(tablet, tablet.sizeDueS);
  }

  private sync(tablet: Tablet): void {
    const { channels, integrals } = this;
    const { rates, syncedAt, odometer } = this.tablets.columns;
    const slot = tablet.slot;
    for (let c = 0; c < channels; c++) {
      const elapsed = integrals[c]! - syncedAt[slot * channels + c]!;
      if (elapsed === 0) continue;
      const rateRow = (slot * channels + c) * QUANTITIES;
      for (let q = 0; q < QUANTITIES; q++) odometer[slot * QUANTITIES + q]! += rates[rateRow + q]! * elapsed;
      syncedAt[slot * channels + c] = integrals[c]!;
    }
  }

  private syncAll(): void {
    for (const tablet of this.tablets.tablets) this.sync(tablet);
  }

  private sumNodes(): void {
    const { channels } = this;
    const { rates } = this.tablets.columns;
    this.staticCost.fill(0);
    this.staticWrites.fill(0);
    for (const tablet of this.tablets.tablets) {
      for (let c = 0; c < channels; c++) {
        const rateRow = (tablet.slot * channels + c) * QUANTITIES;
        this.staticCost[tablet.node * channels + c]! += rates[rateRow + COST]!;
        this.staticWrites[tablet.node * channels + c]! += rates[rateRow + WRITES]!;
      }
    }
  }
}

/** Every item of the queue due at or before `nowS`. */
function popDue<T>(queue: FlatQueue<T>, nowS: number): { item: T }[] {
  const due: { item: T }[] = [];
  while (queue.length > 0 && queue.peekValue()! <= nowS) due.push({ item: queue.pop()! });
  return due;
}

/** A range narrowed to the keys written, when it reaches past them (the first and last tablets). */
function withinWritten(
  start: Buffer,
  end: Buffer | null,
  written: { min: Buffer; max: Buffer } | null,
): { start: Buffer; end: Buffer | null } {
  if (written === null) return { start, end };
  const after = keySuccessor(written.max);
  const narrowedStart =
    Buffer.compare(start, written.min) < 0 && (end === null || Buffer.compare(written.min, end) < 0)
      ? written.min
      : start;
  const narrowedEnd =
    (end === null || Buffer.compare(after, end) < 0) && Buffer.compare(narrowedStart, after) < 0
      ? after
      : end;
  return { start: narrowedStart, end: narrowedEnd };
}

/**
 * Key ranges per sampled step at most (Key Visualizer draws ~1,000 key buckets): beyond that,
 * neighbouring tablets are summed into one range, shown on the node of its busiest tablet, so a
 * long run of a table with thousands of tablets stays small.
 */
const MAX_RANGES = 1000;

/** Latency of writes and of each read pattern, and the reads shed, over one part of a run. */
class Latencies {
  readonly write = new LatencyHistogram();
  readonly reads: LatencyHistogram[];
  readonly shed: { shed: number; total: number }[];

  constructor(patterns: number) {
    this.reads = Array.from({ length: patterns }, () => new LatencyHistogram());
    this.shed = Array.from({ length: patterns }, () => ({ shed: 0, total: 0 }));
  }

  readShedShare(pattern: number): number {
    const { shed, total } = this.shed[pattern]!;
    return total > 0 ? shed / total : 0;
  }
}

/**
 * A read waits for its slowest range: P(read ≤ x) = Π over its ranges of P(range ≤ x), computed
 * in logs per node so a 256-range read costs one multiply-add per node and latency bucket.
 */
function recordReadLatency(
  cluster: ClusterLoad,
  latency: LatencySettings,
  targets: readonly { phase: Latencies; weightS: number }[],
): void {
  const { nodeCost, tablets } = cluster;
  const logCdfs = new Map<string, Float64Array>();
  const logCdf = (node: number, serviceMs: number) => {
    const id = `${node}:${serviceMs}`;
    let cached = logCdfs.get(id);
    if (!cached) {
      cached = cdfAtEdges(nodeCost[node]!, latency.serviceMs + serviceMs, latency).map(Math.log);
      logCdfs.set(id, cached);
    }
    return cached;
  };
  const combined = new Float64Array(LATENCY_EDGES_MS.length);
  for (const sample of cluster.readSamples()) {
    const perNode = new Map<number, number>();
    for (const index of sample.tablets) {
      const node = tablets.tablets[index]!.node;
      perNode.set(node, (perNode.get(node) ?? 0) + 1);
    }
    combined.fill(0);
    let shedRanges = 0;
    for (const [node, ranges] of perNode) {
      const logs = logCdf(node, sample.serviceMs);
      for (let k = 0; k < combined.length; k++) combined[k]! += ranges * logs[k]!;
      shedRanges += ranges * shedShare(nodeCost[node]!);
    }
    const cdf = combined.map(Math.exp);
    for (const { phase, weightS } of targets) {
      const weight = sample.weightPerS * weightS;
      phase.reads[sample.pattern]!.add(weight, cdf);
      phase.shed[sample.pattern]!.shed += (weight * shedRanges) / sample.tablets.length;
      phase.shed[sample.pattern]!.total += weight;
    }
  }
}
