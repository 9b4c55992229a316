/**
 * The verdict's first lines, in the user's terms, from one structured record both `lab` and
 * `advise` print first: what sizes the cluster (CPU, storage, one hot tablet, a read pattern), the
 * recommended design with its nodes and $/month, and the cheapest alternative when it differs. The
 * record is in advice.json too, so a script reads the reason without parsing a sentence.
 */
import type { Advice } from "../judge/advise.js";
import { capacityBound, type EvaluatedCandidate, type JudgedCandidate } from "../judge/recommend.js";

/**
 * What sizes the cluster: `cpu` or `storage` for the recommendation's node count; `hot-tablet`
 * when nothing is recommended because the load sits on one key range (more nodes do not cool it);
 * `read-pattern` when no candidate serves a declared read as key ranges.
 */
export type SizedBy = "cpu" | "storage" | "hot-tablet" | "read-pattern";

export interface HeadlineDesign {
  design: string;
  /** The nodes it needs at the stated growth, by Google's targets (what the $/month prices). */
  nodes: number;
  storage: "ssd" | "hdd";
  /** Dollars per month at the scenario's prices (null when the design has no node count that meets the targets). */
  monthlyUsd: number | null;
}

export interface VerdictHeadline {
  sizedBy: SizedBy;
  /** The nodes the recommendation (else the current key) needs for CPU and for storage, at the stated growth. */
  cpuNodes: number | null;
  storageNodes: number | null;
  /** Bytes kept over the retention, at the stated growth. */
  storedBytes: number | null;
  /** The nodes planned for (the scenario's). */
  plannedNodes: number;
  recommended?: HeadlineDesign;
  /** A cheaper way to run the workload, when there is one: a cheaper design, else the same on HDD, else keeping fewer days. */
  cheapest?: HeadlineDesign & { how: "design" | "hdd" | "keep-fewer-days" };
}

const designOf = (advice: Advice, each: JudgedCandidate): HeadlineDesign => ({
  design: each.candidate.name,
  nodes: each.sizing.atGrowth.total ?? each.nodes,
  storage: advice.storage,
  monthlyUsd: each.cost?.total ?? null,
});

function sizedByOf(advice: Advice, judged: EvaluatedCandidate | undefined): SizedBy {
  if (advice.recommended) return advice.recommended.sizing.atGrowth.bound;
  const unservable = advice.candidates.every((each) =>
    each.reads.some((read) => read.status === "cannot-serve"),
  );
  if (unservable) return "read-pattern";
  if (judged?.kind === "judged" && !capacityBound(judged)) return "hot-tablet";
  return judged?.kind === "judged" && judged.sizing.atGrowth.bound === "storage" ? "storage" : "cpu";
}

function cheapestOf(advice: Advice): VerdictHeadline["cheapest"] {
  if (advice.cheapest) return { ...designOf(advice, advice.cheapest), how: "design" };
  const options = advice.storageOptions;
  const name = advice.recommended?.candidate.name ?? advice.candidates[0]!.candidate.name;
  const hdd = options?.hdd;
  if (hdd?.readsTolerate && hdd.nodes !== null && hdd.cost)
    return { design: name, nodes: hdd.nodes, storage: "hdd", monthlyUsd: hdd.cost.total, how: "hdd" };
  const fewer = options?.keepFewerDays;
  if (fewer)
    return {
      design: name,
      nodes: fewer.nodes,
      storage: advice.storage,
      monthlyUsd: fewer.cost.total,
      how: "keep-fewer-days",
    };
  return undefined;
}

export function verdictHeadline(advice: Advice): VerdictHeadline {
  const judged = advice.recommended ?? advice.candidates[0];
  const sizing = judged?.kind === "judged" ? judged.sizing.atGrowth : undefined;
  const cheapest = cheapestOf(advice);
  return {
    sizedBy: sizedByOf(advice, judged),
    cpuNodes: sizing?.cpu ?? null,
    storageNodes: sizing?.storage ?? null,
    storedBytes: sizing?.storedBytes ?? null,
    plannedNodes: advice.nodes,
    ...(advice.recommended ? { recommended: designOf(advice, advice.recommended) } : {}),
    ...(cheapest ? { cheapest } : {}),
  };
}

const dollars = (usd: number | null) =>
  usd === null ? "cost unknown" : `$${Math.round(usd).toLocaleString("en")}/month`;

const terabytes = (bytes: number | null) =>
  bytes === null ? "" : `, ${(bytes / 1e12).toLocaleString("en", { maximumFractionDigits: 0 })} TB,`;

/** The reason in one line: what sizes the cluster. */
function reasonLine(advice: Advice, headline: VerdictHeadline): string {
  const { cpuNodes, storageNodes } = headline;
  switch (headline.sizedBy) {
    case "storage":
      return `Storage sizes this cluster: the data kept${terabytes(headline.storedBytes)} need ${storageNodes} ${advice.storage.toUpperCase()} nodes; the CPU needs ${cpuNodes ?? "–"}, and the key only has to spread the writes over those.`;
    case "cpu":
      return `CPU sizes this cluster: the writes and reads need ${cpuNodes} nodes (storage ${storageNodes}).`;
    case "hot-tablet":
      return `One hot tablet sizes this cluster: the load sits on one key range, and more nodes do not cool it; only a key change does.`;
    case "read-pattern":
      return `A read pattern decides this: no candidate key serves every declared read as key ranges.`;
  }
}

/** The headline as printed: the reason, the recommendation, the cheapest alternative (each one line). */
export function headlineLines(advice: Advice, headline = verdictHeadline(advice)): string[] {
  const recommended = headline.recommended;
  const chosen = advice.recommended;
  const lines = [reasonLine(advice, headline)];
  lines.push(
    recommended && chosen
      ? `Recommended: ${chosen.candidate.name}, ${recommended.nodes} ${recommended.storage.toUpperCase()} nodes by Google's targets${recommended.nodes === headline.plannedNodes ? "" : ` (${headline.plannedNodes} planned)`}, ${dollars(recommended.monthlyUsd)}.`
      : "No recommendation: see why each design loses below.",
  );
  const cheapest = headline.cheapest;
  if (cheapest) {
    const how =
      cheapest.how === "hdd"
        ? "the same design on HDD"
        : cheapest.how === "keep-fewer-days"
          ? "keeping fewer days in Bigtable and exporting the rest"
          : cheapest.design;
    lines.push(
      `Cheapest alternative: ${how}, ${cheapest.nodes} ${cheapest.storage.toUpperCase()} nodes, ${dollars(cheapest.monthlyUsd)}.`,
    );
  }
  return lines;
}
