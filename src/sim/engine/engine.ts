/**
 * The cluster loop shared by both engines. Each step the channels' multipliers scale the static
 * load each node carries and the dynamic load lands on tablets (`tablet-load.ts`); nodes sum it
 * into CPU, latency and shedding follow from utilisation (`latencies.ts`). Every split check, hot or
 * large tablets split (`split-check.ts`); every balancer period, cold neighbours merge and the
 * balancer moves load (`balance-period.ts`). Per-tablet work happens only at those checks and at
 * samples (`key-range-sample.ts`), so a step costs O(nodes), and a run of tens of thousands of
 * tablets stays fast.
 */

import type { LoadStep } from "../../load/key-load.js";
import { type BalanceSettings, closeSharePerPeriod } from "../cluster/balancer.js";
import { shedShare } from "../cluster/latency.js";
import type { LatencySettings, TabletSettings } from "../cluster/model.js";
import type { TabletMap } from "../cluster/tablets.js";
import type { LoadGenerator } from "../load/load.js";
import type { Span } from "../scenario/cycle.js";
import { closeBalancePeriod } from "./balance-period.js";
import { sampleKeyRanges } from "./key-range-sample.js";
import { Latencies, type LatencyTarget, recordLatency } from "./latencies.js";
import type { JudgedPoint, ReadDemand, ReadSummary, TabletActivity, TimelinePoint } from "./measurements.js";
import { SampleWindow } from "./sample-window.js";
import { SplitCheck } from "./split-check.js";
import { TabletLoad } from "./tablet-load.js";

export interface EngineInput {
  tablets: TabletMap;
  generator: LoadGenerator;
  nodes: number;
  durationS: number;
  stepS: number;
  sampleS: number;
  tabletSettings: TabletSettings;
  latency: LatencySettings;
  readPatterns: ReadDemand[];
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
  private readonly load: TabletLoad;
  private readonly splitCheck: SplitCheck;
  private readonly steps: number;
  private readonly every: { sample: number; check: number; balance: number; latency: number };
  private readonly balanceSettings: BalanceSettings;
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
    this.load = new TabletLoad(input.tablets, input.generator, input.nodes);
    this.splitCheck = new SplitCheck(this.load, settings);
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
    this.load.step(tS, stepS);
    this.account(tS, stepS);
    const span = this.judgedSpans.find((each) => step >= each.first && step < each.end);
    if (span) this.judgedWindow.add(this.load, stepS, tS);
    const latency: LatencyTarget[] = [];
    if (step % this.every.latency === 0)
      latency.push({ phase: this.whole, weightS: Math.min(this.every.latency, this.steps - step) * stepS });
    if (span && (step - span.first) % this.every.latency === 0)
      latency.push({ phase: this.steady, weightS: Math.min(this.every.latency, span.end - step) * stepS });
    if (latency.length > 0) recordLatency(this.load, this.input.latency, latency);
    if ((step + 1) % this.every.check === 0) this.splitCheck.run(nowS);
    if ((step + 1) % this.every.balance === 0)
      this.moves += closeBalancePeriod(
        this.load,
        this.splitCheck,
        this.input.tabletSettings,
        this.balanceSettings,
        this.every.balance * stepS,
        nowS,
      );
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
      storedBytes: this.load.storedBytes(),
    };
  }

  /** Writes asked for and shed over the step, and the sample window's node CPU. */
  private account(tS: number, stepS: number): void {
    const { nodeCost, nodeWrites } = this.load;
    for (let n = 0; n < this.input.nodes; n++) {
      this.writes.total += nodeWrites[n]! * stepS;
      this.writes.shed += nodeWrites[n]! * shedShare(nodeCost[n]!) * stepS;
    }
    this.window.add(this.load, stepS, tS);
  }

  /** Closes the sample window: one time-series point and the key ranges' load. */
  private sample(): void {
    const { window } = this;
    const point = window.point(this.input.tablets);
    this.timeline.push(point);
    this.loadSteps.push(sampleKeyRanges(this.load, point.nodeCpu, window.start, window.seconds));
    window.reset(window.start + window.seconds);
  }
}
