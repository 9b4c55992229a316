/**
 * Headroom: a recommendation must still meet the targets at twice the stated write rate (Google:
 * latency-sensitive clusters plan for 2× peak), and the report says at what write rate it breaks.
 * Node CPU grows linearly with the write rate while the key's spread stays the same, so the rate at
 * which the hottest or the average node reaches its target lies on the line through the runs at 1×
 * and 2× (interpolated below 2×, extrapolated above it).
 */
import type { AdviceTargets, DesignScores, TargetFailure } from "./score.js";

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

/** Write rate multiple a recommendation must sustain. */
export const HEADROOM_FACTOR = 2;

export interface HeadroomCheck {
  /** The write rate simulated (HEADROOM_FACTOR × the stated one). */
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
  doubled: DesignScores,
  targets: AdviceTargets,
): HeadroomCheck["breaksAt"] {
  const rate2 = HEADROOM_FACTOR * writesPerS;
  const measured = (Object.keys(MEASURED) as BreakingTarget[]).filter(
    (target) => target !== "warmUpCpu" || today.buckets > 1,
  );
  const options = measured.flatMap((target) => {
    const key = MEASURED[target];
    const at = crossing(writesPerS, today[key] as number, rate2, doubled[key] as number, targets[target]);
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
  const at = `at ${HEADROOM_FACTOR}× the write rate (${roughRate(headroom.writesPerS)} writes/s)`;
  const verdict =
    headroom.failures.length === 0
      ? `still meets the targets ${at}: hottest node ${Math.round(headroom.scores.hottestCpu * 100)}%, average ${Math.round(headroom.scores.averageCpu * 100)}%`
      : `misses the targets ${at}: ${headroom.failures.map((failure) => failure.text).join("; ")}`;
  const breaks = headroom.breaksAt;
  const where =
    breaks === null
      ? ""
      : `; it breaks at about ${roughRate(breaks.writesPerS)} writes/s (${(breaks.writesPerS / writesPerS).toFixed(1)}× today), where ${NODE_WORDS[breaks.target]}`;
  return `${verdict}${where}`;
}
