/**
 * Growth: a recommendation must still meet the targets at the growth the user states (`growth` in
 * the scenario, `--growth`), and the report says at what write rate it breaks. The default is no
 * growth: Google's targets (average CPU ≤ 70 %, hottest node ≤ 90 %, storage ≤ 70 % of a node's
 * limit; "Monitoring", https://cloud.google.com/bigtable/docs/monitoring-instance) already leave the
 * headroom for peaks, and how much a workload will grow is the user's forecast, not the model's.
 * At a growth above 1 the design runs again with the whole workload (writes and reads) that many
 * times larger; node CPU grows linearly with it while the key's spread stays the same, so the rate
 * at which the hottest or the average node reaches its target lies on the line through the two runs.
 */
import type { AdviceTargets, DesignScores, TargetFailure } from "./score.js";
import { targetFailuresText } from "./target-failure-text.js";

type BreakingTarget = "hottestCpu" | "averageCpu" | "warmUpCpu";

/** Each target against the score that it bounds (the warm-up peak only matters for salted tables). */
const MEASURED: Readonly<Record<BreakingTarget, keyof DesignScores>> = {
  hottestCpu: "hottestCpu",
  averageCpu: "averageCpu",
  warmUpCpu: "peakHottestCpu",
};

const NODE_WORDS: Readonly<Record<BreakingTarget, string>> = {
  hottestCpu: "the hottest node reaches its target",
  averageCpu: "the average node reaches its target",
  warmUpCpu: "a new salted table's warm-up saturates its hottest node",
};

/** Growth planned for when the scenario and the options state none: today's workload. */
export const DEFAULT_GROWTH = 1;

export interface HeadroomCheck {
  /** The multiple of today's workload checked. */
  growth: number;
  /** The write rate at that growth. */
  writesPerS: number;
  scores: DesignScores;
  /** Targets missed at that rate; empty when the design has the headroom. */
  failures: TargetFailure[];
  /** Estimated write rate at which the first CPU target is crossed, and which; null when none grows with writes. */
  breaksAt: { writesPerS: number; target: BreakingTarget } | null;
}

/** Where the line through (r1, m1) and (r2, m2) reaches `target`; undefined when it does not rise. */
function crossing(r1: number, m1: number, r2: number, m2: number, target: number): number | undefined {
  const slope = (m2 - m1) / (r2 - r1);
  if (!(slope > 0)) return undefined;
  return Math.max(0, r1 + (target - m1) / slope);
}

export function breakingRate(
  writesPerS: number,
  today: DesignScores,
  grown: DesignScores,
  targets: AdviceTargets,
  growth: number,
): HeadroomCheck["breaksAt"] {
  const rate2 = growth * writesPerS;
  const measured = (Object.keys(MEASURED) as BreakingTarget[]).filter(
    (target) => target !== "warmUpCpu" || today.buckets > 1,
  );
  const options = measured.flatMap((target) => {
    const key = MEASURED[target];
    const at = crossing(writesPerS, today[key] as number, rate2, grown[key] as number, targets[target]);
    return at === undefined ? [] : [{ writesPerS: at, target }];
  });
  return options.sort((a, b) => a.writesPerS - b.writesPerS)[0] ?? null;
}

/** Two significant digits: an estimate, not a measurement. */
export function roughRate(writesPerS: number): string {
  const digits = Math.max(0, Math.floor(Math.log10(Math.max(1, writesPerS))) - 1);
  const rounded = Math.round(writesPerS / 10 ** digits) * 10 ** digits;
  return rounded.toLocaleString("en-US");
}

/** One sentence on the headroom of a design, for the report. */
export function headroomText(headroom: HeadroomCheck, writesPerS: number): string {
  const at = `at the stated growth, ${headroom.growth}× today (${roughRate(headroom.writesPerS)} writes/s)`;
  const verdict =
    headroom.failures.length === 0
      ? `still meets the targets ${at}: hottest node ${Math.round(headroom.scores.hottestCpu * 100)}%, average ${Math.round(headroom.scores.averageCpu * 100)}%`
      : `misses the targets ${at}: ${targetFailuresText(headroom.failures)}`;
  const breaks = headroom.breaksAt;
  const where =
    breaks === null
      ? ""
      : `; it breaks at about ${roughRate(breaks.writesPerS)} writes/s (${(breaks.writesPerS / writesPerS).toFixed(1)}× today), where ${NODE_WORDS[breaks.target]}`;
  return `${verdict}${where}`;
}
