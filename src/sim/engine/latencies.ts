/**
 * Latency of writes and reads from the nodes' CPU: each node's latency distribution at its
 * utilisation (`cdfAtEdges`), weighted by what it serves, into one part of a run's histograms.
 */
import { cdfAtEdges, LATENCY_EDGES_MS, LatencyHistogram, shedShare } from "../cluster/latency.js";
import type { LatencySettings } from "../cluster/model.js";
import type { TabletLoad } from "./tablet-load.js";

/** Latency of writes and of each read pattern, and the reads shed, over one part of a run. */
export class Latencies {
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

/** One part of a run to record into, and the simulated seconds this step's latency stands for there. */
export interface LatencyTarget {
  phase: Latencies;
  weightS: number;
}

/** Latency of the cluster as it is this step into each target. */
export function recordLatency(
  load: TabletLoad,
  latency: LatencySettings,
  targets: readonly LatencyTarget[],
): void {
  const { nodeCost, nodeWrites } = load;
  for (let n = 0; n < load.nodes; n++) {
    const served = nodeWrites[n]! * (1 - shedShare(nodeCost[n]!));
    const cdf = cdfAtEdges(nodeCost[n]!, latency.serviceMs, latency);
    for (const { phase, weightS } of targets) phase.write.add(served * weightS, cdf);
  }
  recordReadLatency(load, latency, targets);
}

/**
 * The logs of a CDF cdfAtEdges cached, kept as long as it is. Each step asks for the same few, and a
 * new typed array per node and step cost the studio's worker: Chromium allocates one of 241 doubles
 * (off the V8 heap) at several times Node's cost.
 */
const LOG_CDFS = new WeakMap<Float64Array, Float64Array>();
function logsOf(cdf: Float64Array): Float64Array {
  let logs = LOG_CDFS.get(cdf);
  if (!logs) {
    logs = cdf.map(Math.log);
    LOG_CDFS.set(cdf, logs);
  }
  return logs;
}

/**
 * A read waits for its slowest range: P(read ≤ x) = Π over its ranges of P(range ≤ x), computed
 * in logs per node so a 256-range read costs one multiply-add per node and latency bucket.
 */
function recordReadLatency(
  load: TabletLoad,
  latency: LatencySettings,
  targets: readonly LatencyTarget[],
): void {
  const { nodeCost, tablets } = load;
  const logCdfs = new Map<string, Float64Array>();
  const logCdf = (node: number, serviceMs: number) => {
    const id = `${node}:${serviceMs}`;
    let cached = logCdfs.get(id);
    if (!cached) {
      cached = logsOf(cdfAtEdges(nodeCost[node]!, latency.serviceMs + serviceMs, latency));
      logCdfs.set(id, cached);
    }
    return cached;
  };
  const combined = new Float64Array(LATENCY_EDGES_MS.length);
  const cdf = new Float64Array(LATENCY_EDGES_MS.length);
  for (const sample of load.readSamples()) {
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
    for (let k = 0; k < cdf.length; k++) cdf[k] = Math.exp(combined[k]!);
    for (const { phase, weightS } of targets) {
      const weight = sample.weightPerS * weightS;
      phase.reads[sample.pattern]!.add(weight, cdf);
      phase.shed[sample.pattern]!.shed += (weight * shedRanges) / sample.tablets.length;
      phase.shed[sample.pattern]!.total += weight;
    }
  }
}
