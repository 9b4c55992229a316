/**
 * One verdict for a replay: the current key against each candidate under the recorded traffic, in
 * sentences, and the candidate to move to when the current key misses Google's guidance: the one
 * that meets it on the fewest nodes (then with the coolest hottest node).
 */
import { formatMs } from "../results/report.js";
import type { DesignResult } from "../results/results.js";
import { misses } from "../results/sensitivity.js";

export interface ReplayVerdict {
  current: string;
  /** The candidate to move to, or null when none meets the guidance better than the current key. */
  recommended: string | null;
  lines: string[];
}

const percent = (share: number) => `${Math.round(share * 100)}%`;

function describe(design: DesignResult, nodes: number): string {
  const { steadyState: steady, guidance } = design.summary;
  const needed = guidance.nodesNeeded.total;
  const reads = design.summary.reads.flatMap((read, index) =>
    read.perS > 0
      ? [
          `${read.name} read ${Number(read.fanout.toFixed(1))} range${read.fanout === 1 ? "" : "s"} each (p99 ${formatMs(steady.reads[index]?.p99Ms ?? read.p99Ms)})`,
        ]
      : [],
  );
  return [
    `${design.design}: hottest node ${percent(steady.hottestNodeCpu)}, average ${percent(steady.averageNodeCpu)}`,
    steady.shedWriteShare > 0.001 ? `${percent(steady.shedWriteShare)} of writes shed` : "",
    ...reads,
    guidance.meets
      ? `meets Google's guidance on ${nodes} nodes`
      : `misses it on ${nodes} nodes (${misses(design)}); ${
          needed === null
            ? steady.warmedUp
              ? "more nodes would not fix it (the load sits on a key range)"
              : "the log is too short to tell whether more nodes would"
            : `needs ${needed} nodes`
        }`,
  ]
    .filter(Boolean)
    .join(", ");
}

export function replayVerdict(designs: readonly DesignResult[]): ReplayVerdict {
  const [current, ...candidates] = designs;
  if (!current) throw new Error("designs: expected the current key first");
  const nodes = current.nodes;
  const lines = designs.map((design) => describe(design, nodes));
  const meeting = candidates
    .filter((design) => design.summary.guidance.meets)
    .sort(
      (a, b) =>
        (a.summary.guidance.nodesNeeded.total ?? nodes) - (b.summary.guidance.nodesNeeded.total ?? nodes) ||
        a.summary.steadyState.hottestNodeCpu - b.summary.steadyState.hottestNodeCpu,
    );
  const best = meeting[0];
  const better = best !== undefined && !current.summary.guidance.meets;
  if (better) {
    lines.push(`Recommended: ${best.design} — it meets the guidance where ${current.design} does not.`);
  } else if (current.summary.guidance.meets) {
    lines.push(`Keep ${current.design}: it meets the guidance under this traffic.`);
  } else {
    const fewest = candidates
      .flatMap((design) => {
        const total = design.summary.guidance.nodesNeeded.total;
        return total === null ? [] : [{ design: design.design, total }];
      })
      .sort((a, b) => a.total - b.total)[0];
    lines.push(
      fewest
        ? `Nothing meets the guidance on ${nodes} nodes; ${fewest.design} would on ${fewest.total}.`
        : `Nothing meets the guidance on ${nodes} nodes, and more nodes would not fix any candidate.`,
    );
  }
  return { current: current.design, recommended: better ? best.design : null, lines };
}
