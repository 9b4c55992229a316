/**
 * The cluster loop shared by both engines: each step the load generator puts load on tablets,
 * nodes sum it into CPU, latency and shedding follow from utilisation, hot or large tablets split,
 * and the balancer moves tablets on its period. It samples a time series and the per-tablet load.
 */

import { mean } from "../stats/mean.js";
import { medianOfSorted } from "../stats/median.js";
import type { KeyRangeLoad, LoadStep } from "../viz/matrix/key-load.js";
import { rebalance } from "./balancer.js";
import { cdfAtEdges, LATENCY_EDGES_MS, LatencyHistogram, shedShare } from "./latency.js";
import { type LoadGenerator, TabletLoad } from "./load.js";
import type { DesignSummary, ReadSummary, TimelinePoint } from "./results.js";
import type { LatencySettings, TabletSettings } from "./scenario.js";
import type { TabletMap } from "./tablets.js";

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
  writeRowBytes: number;
  onStep?: (doneS: number) => void;
}

export interface EngineOutput {
  summary: DesignSummary;
  timeline: TimelinePoint[];
  loadSteps: LoadStep[];
}

/** Latency is estimated every this many simulated seconds (it changes slowly; the cost is per node). */
const LATENCY_EVERY_S = 10;
const HALF_HOUR_S = 1800;
const SPLIT_RETRY_S = 60;
/** Nodes under 1 % CPU count as 1 % in the hottest/median ratio: "all load on one node" stays finite, an idle cluster is flat. */
const CPU_FLOOR = 0.01;

export function runEngine(input: EngineInput): EngineOutput {
  const { tablets, generator, nodes, stepS, latency, tabletSettings: settings } = input;
  const steps = Math.max(1, Math.round(input.durationS / stepS));
  const sampleEvery = Math.max(1, Math.round(input.sampleS / stepS));
  const balanceEvery = Math.max(1, Math.round(settings.balancePeriod / stepS));
  const latencyEvery = Math.max(1, Math.round(LATENCY_EVERY_S / stepS));
  const initialTablets = tablets.tablets.length;
  const load = new TabletLoad();
  const nodeCost = new Float64Array(nodes);
  const nodeWrites = new Float64Array(nodes);
  const windowCpu = new Float64Array(nodes);
  const writeLatency = new LatencyHistogram();
  const readLatency = input.readPatterns.map(() => new LatencyHistogram());
  const readShed = input.readPatterns.map(() => ({ shed: 0, total: 0 }));
  const timeline: TimelinePoint[] = [];
  const loadSteps: LoadStep[] = [];
  let writesTotal = 0;
  let writesShed = 0;
  let windowWrites = 0;
  let windowShed = 0;
  let windowStart = 0;
  let moves = 0;

  for (let step = 0; step < steps; step++) {
    const tS = step * stepS;
    const count = tablets.tablets.length;
    load.reset(count);
    generator.emit(tS, stepS, tablets, load);
    nodeCost.fill(0);
    nodeWrites.fill(0);
    for (let j = 0; j < count; j++) {
      const tablet = tablets.tablets[j]!;
      nodeCost[tablet.node]! += load.cost[j]!;
      nodeWrites[tablet.node]! += load.writes[j]!;
      tablet.periodCost += load.cost[j]! * stepS;
      tablet.bytes += load.stored[j]! * stepS;
      tablet.window[0] += load.writes[j]! * stepS;
      tablet.window[1] += load.rangeReads[j]! * stepS;
      tablet.window[2] += load.rows[j]! * stepS;
      tablet.window[3] += load.bytes[j]! * stepS;
    }
    for (let n = 0; n < nodes; n++) {
      const shed = shedShare(nodeCost[n]!);
      writesTotal += nodeWrites[n]! * stepS;
      writesShed += nodeWrites[n]! * shed * stepS;
      windowWrites += nodeWrites[n]! * stepS;
      windowShed += nodeWrites[n]! * shed * stepS;
      windowCpu[n]! += nodeCost[n]! * stepS;
    }
    if (step % latencyEvery === 0) {
      const weightS = Math.min(latencyEvery, steps - step) * stepS;
      for (let n = 0; n < nodes; n++) {
        const served = nodeWrites[n]! * (1 - shedShare(nodeCost[n]!));
        writeLatency.add(served * weightS, cdfAtEdges(nodeCost[n]!, latency.serviceMs, latency));
      }
      recordReadLatency(generator, tablets, nodeCost, latency, readLatency, readShed, weightS);
    }
    splitTablets(tablets, load, generator, settings, tS);
    if ((step + 1) % balanceEvery === 0) {
      const periodS = balanceEvery * stepS;
      moves += rebalance(
        tablets.tablets,
        nodes,
        settings.movesPerPeriod,
        settings.imbalance,
        settings.minCpuGap * periodS,
      );
      for (const tablet of tablets.tablets) tablet.periodCost = 0;
    }
    if ((step + 1) % sampleEvery === 0 || step === steps - 1) {
      const durationS = tS + stepS - windowStart;
      const nodeCpu = Array.from(windowCpu, (sum) => sum / durationS);
      const sorted = [...nodeCpu].sort((a, b) => a - b);
      timeline.push({
        t: windowStart,
        nodeCpu,
        hottestNodeCpu: sorted[sorted.length - 1]!,
        medianNodeCpu: medianOfSorted(sorted),
        tablets: tablets.tablets.length,
        shedWriteShare: windowWrites > 0 ? windowShed / windowWrites : 0,
      });
      loadSteps.push(sampleLoad(tablets, nodeCpu, windowStart, durationS));
      windowCpu.fill(0);
      windowWrites = 0;
      windowShed = 0;
      windowStart = tS + stepS;
    }
    input.onStep?.(tS + stepS);
  }

  const hottest = timeline.map((point) => point.hottestNodeCpu);
  const ratios = timeline.map(
    (point) => Math.max(point.hottestNodeCpu, CPU_FLOOR) / Math.max(point.medianNodeCpu, CPU_FLOOR),
  );
  const over = (from: number, to: number) =>
    mean(timeline.filter((point) => point.t >= from && point.t < to).map((point) => point.hottestNodeCpu));
  return {
    summary: {
      hottestNodeCpu: {
        first: hottest[0]!,
        last: hottest[hottest.length - 1]!,
        first30m: over(0, HALF_HOUR_S),
        last30m: over(input.durationS - HALF_HOUR_S, Number.POSITIVE_INFINITY),
        mean: mean(hottest),
        max: Math.max(...hottest),
      },
      medianNodeCpu: { mean: mean(timeline.map((point) => point.medianNodeCpu)) },
      maxOverMedian: { first: ratios[0]!, last: ratios[ratios.length - 1]!, mean: mean(ratios) },
      settledAfterS: settledAfter(timeline, ratios),
      writes: {
        perS: writesTotal / (steps * stepS),
        rowBytes: input.writeRowBytes,
        p50Ms: writeLatency.quantile(0.5),
        p99Ms: writeLatency.quantile(0.99),
        shedShare: writesTotal > 0 ? writesShed / writesTotal : 0,
      },
      reads: input.readPatterns.map((pattern, index) => ({
        ...pattern,
        p50Ms: readLatency[index]!.quantile(0.5),
        p99Ms: readLatency[index]!.quantile(0.99),
        shedShare: readShed[index]!.total > 0 ? readShed[index]!.shed / readShed[index]!.total : 0,
      })),
      tablets: {
        initial: initialTablets,
        final: tablets.tablets.length,
        loadSplits: tablets.splits.load,
        sizeSplits: tablets.splits.size,
        moves,
      },
    },
    timeline,
    loadSteps,
  };
}

/**
 * A read waits for its slowest range: P(read ≤ x) = Π over its ranges of P(range ≤ x), computed
 * in logs per node so a 256-range read costs one multiply-add per node and latency bucket.
 */
function recordReadLatency(
  generator: LoadGenerator,
  tablets: TabletMap,
  nodeCost: Float64Array,
  latency: LatencySettings,
  histograms: LatencyHistogram[],
  shed: { shed: number; total: number }[],
  weightS: number,
): void {
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
  for (const sample of generator.readSamples(tablets)) {
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
    const weight = sample.weightPerS * weightS;
    histograms[sample.pattern]!.add(weight, combined.map(Math.exp));
    shed[sample.pattern]!.shed += (weight * shedRanges) / sample.tablets.length;
    shed[sample.pattern]!.total += weight;
  }
}

function splitTablets(
  tablets: TabletMap,
  load: TabletLoad,
  generator: LoadGenerator,
  settings: TabletSettings,
  tS: number,
): void {
  // Backwards, so a split (which inserts after index j) leaves the indices still to visit intact.
  for (let j = tablets.tablets.length - 1; j >= 0; j--) {
    const tablet = tablets.tablets[j]!;
    if (load.writes[j]! + load.rangeReads[j]! > settings.splitOpsPerS) {
      tablet.hotSince ??= tS;
      if (tS - tablet.hotSince >= settings.splitSustain) {
        // A tablet whose load is one key cannot split; it stays hot and is retried a minute later.
        if (!tablets.split(j, generator.candidates(tablets, j), "load")) tablet.hotSince = tS + SPLIT_RETRY_S;
        continue;
      }
    } else {
      tablet.hotSince = null;
    }
    if (tablet.bytes > Math.max(settings.splitBytes, tablet.sizeRetryBytes)) {
      if (!tablets.split(j, generator.candidates(tablets, j), "size"))
        tablet.sizeRetryBytes = tablet.bytes * 2;
    }
  }
}

/**
 * Key ranges per sampled step at most (Key Visualizer draws ~1,000 key buckets): beyond that,
 * neighbouring tablets are summed into one range, shown on the node of its busiest tablet, so a
 * long run of a table with thousands of tablets stays small.
 */
const MAX_RANGES = 1000;

function sampleLoad(tablets: TabletMap, nodeCpu: number[], t: number, durationS: number): LoadStep {
  const list = tablets.tablets;
  const perRange = Math.ceil(list.length / MAX_RANGES);
  const ranges: KeyRangeLoad[] = [];
  for (let first = 0; first < list.length; first += perRange) {
    const last = Math.min(first + perRange, list.length) - 1;
    let [writes, rangeReads, rows, bytes, storedBytes] = [0, 0, 0, 0, 0];
    let busiest = list[first]!;
    for (let index = first; index <= last; index++) {
      const tablet = list[index]!;
      const [w, r] = tablet.window;
      if (w + r > busiest.window[0] + busiest.window[1]) busiest = tablet;
      writes += w;
      rangeReads += r;
      rows += tablet.window[2];
      bytes += tablet.window[3];
      storedBytes += tablet.bytes;
    }
    ranges.push({
      start: list[first]!.start,
      end: tablets.end(last),
      readsPerS: rangeReads / durationS,
      writesPerS: writes / durationS,
      scannedRowsPerS: rows / durationS,
      bytesPerS: bytes / durationS,
      // Lets the heatmap measure a band's width by data held, as Key Visualizer does.
      storedBytes,
      node: busiest.node,
      nodeCpu: nodeCpu[busiest.node]!,
    });
  }
  for (const tablet of list) tablet.window = [0, 0, 0, 0];
  return { t, durationS, ranges };
}

/** Hottest/median at or under this counts as balanced. */
const SETTLED_RATIO = 1.5;

function settledAfter(timeline: TimelinePoint[], ratios: number[]): number | null {
  let from = ratios.length;
  while (from > 0 && ratios[from - 1]! <= SETTLED_RATIO) from--;
  return from < ratios.length ? timeline[from]!.t : null;
}
