/**
 * The lab checks of examples/checks: answers derived by hand from Google's published figures and
 * written down (expected.json, README.md there) before the fixes of issues 23 and 24 existed. Each
 * case runs its command through the library (simulateScenario, adviseScenario, judgeScenario) on the
 * scenario as written, reads the figure each expectation names through one mapping table (the
 * expectations' names were guesses made before the outputs existed), and asserts the bound as
 * written — or, where the expectation itself was wrong, a corrected bound with the reason
 * (CORRECTIONS; listed under "Results" in examples/checks/README.md).
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { type Advice, adviseScenario } from "../src/advise/judge/advise.js";
import { lossReason } from "../src/advise/judge/loss-reason.js";
import {
  type EvaluatedCandidate,
  type JudgedCandidate,
  meetsTargets,
} from "../src/advise/judge/recommend.js";
import { HOURS_PER_MONTH, monthlyCost } from "../src/advise/size/cost.js";
import { judgeScenario, type LabVerdict } from "../src/lab/judge.js";
import { MODEL_CONSTANTS } from "../src/sim/cluster/model-constants.js";
import type { DesignResult, SimulationResult } from "../src/sim/results/results.js";
import { type SensitivityResult, simulateSensitivity } from "../src/sim/results/sensitivity.js";
import { simulateScenario } from "../src/sim/results/simulate.js";
import { impliedRetention } from "../src/sim/scenario/retention.js";
import { parseScenario, type Scenario } from "../src/sim/scenario/scenario.js";

const DIR = new URL("../examples/checks/", import.meta.url);

interface Check {
  case: string;
  file: string;
  command: "simulate" | "advise" | "lab";
  design: string;
  expect: Record<string, unknown>;
  note?: string;
}

const CHECKS = JSON.parse(readFileSync(new URL("expected.json", DIR), "utf8")) as Check[];

/** Each command's run of a file, once: several cases read the same run. */
const memo = <T>(run: (file: string) => T) => {
  const runs = new Map<string, T>();
  return (file: string) => {
    if (!runs.has(file)) runs.set(file, run(file));
    return runs.get(file)!;
  };
};
const scenarioOf = memo((file) => parseScenario(readFileSync(new URL(file, DIR), "utf8")));
const simulated = memo((file): SimulationResult => simulateScenario(scenarioOf(file)));
const ranged = memo((file): SensitivityResult => simulateSensitivity(scenarioOf(file)));
/** The workload at the scenario's stated growth (writes and reads), simulated as written otherwise. */
const grown = memo((file): SimulationResult => {
  const scenario = scenarioOf(file);
  const growth = scenario.growth ?? 1;
  return simulateScenario({
    ...scenario,
    workload: {
      ...scenario.workload,
      groups: scenario.workload.groups.map((group) => ({ ...group, writesPerS: group.writesPerS * growth })),
      reads: scenario.workload.reads.map((read) => ({ ...read, perS: read.perS * growth })),
    },
  });
});
/**
 * The diurnal files' advice took ~45 s each: every salt count fails alike on the flat hashed key at
 * its peak (a salt moves load, it does not remove it), so one count (2 × the 12 nodes) stands for
 * them; the recommendation — the current key on the peak's nodes — is the same.
 */
const ADVISE_OPTIONS: Record<string, { buckets: number[] }> = {
  "diurnal-start-0000.yaml": { buckets: [24] },
  "diurnal-start-1330.yaml": { buckets: [24] },
};
// Stops at the simplest candidate meeting the targets with headroom: the same recommendation as an
// exhaustive run (advise.ts), without simulating every salt on the diurnal files (~45 s each).
const advised = memo(
  (file): Advice => adviseScenario(scenarioOf(file), { exhaustive: false, ...ADVISE_OPTIONS[file] }),
);
const judged = memo((file): LabVerdict => judgeScenario(scenarioOf(file)));

const designOf = (result: SimulationResult, name: string): DesignResult => {
  const design = result.designs.find((each) => each.design === name);
  if (!design) throw new Error(`no design ${name} in ${result.scenario}`);
  return design;
};

const verdict = (meets: boolean) => (meets ? "meets" : "misses");
const TiB = 2 ** 40;
const DAY_S = 86_400;

/** A row's cost in 1 KB-row units (docs/simulator.md, "Nodes and the cost of an operation"). */
const sizeFactor = (share: number, rowBytes: number) =>
  Math.max(rowBytes / 1024, share + (1 - share) * (rowBytes / 1024));

interface Context {
  check: Check;
  scenario: Scenario;
}

const fitted = (lab: LabVerdict) =>
  lab.calibration?.fit.status === "fitted" ? lab.calibration.fit : undefined;
const fittedConstant = (lab: LabVerdict, field: string, fallback: number) =>
  fitted(lab)?.moved.find((moved) => moved.field === field)?.to ?? fallback;
const labCandidate = (lab: LabVerdict, design: string): JudgedCandidate => {
  const candidate = lab.advice.candidates.find((each) => each.candidate.name === design);
  if (!candidate) throw new Error(`the lab judged no design ${design}`);
  if (candidate.kind === "failed")
    throw new Error(`the lab could not simulate ${design}: ${candidate.error}`);
  return candidate;
};
const keyChanges = (candidate: EvaluatedCandidate | undefined) =>
  candidate?.candidate.changes.filter((change) => change.kind !== "batch") ?? [];
const batchOf = (candidate: EvaluatedCandidate | undefined) => {
  const batch = candidate?.candidate.changes.find((change) => change.kind === "batch");
  return batch?.kind === "batch" ? batch.intervalS : null;
};
/** The decision table leans toward salting when any row points to it. */
const pointsToSalting = (advice: Advice) => advice.decision.some((row) => row.pointsTo === "salting");

/** The cheaper storage of a storage-bound recommendation, and what it saves per month. */
const storageTrade = (advice: Advice) => {
  const options = advice.storageOptions;
  const hdd = options?.hdd?.cost;
  if (!options || !hdd) return undefined;
  return hdd.total < options.current.cost.total
    ? { storage: "hdd", saving: options.current.cost.total - hdd.total }
    : { storage: options.current.storage, saving: 0 };
};

/** Simulate: the expectations' names → `DesignSummary` (a cyclic load's judged time is its peaks). */
const SIMULATE: Record<string, (d: DesignResult, c: Context) => unknown> = {
  verdict: (d) => verdict(d.summary.guidance.meets),
  "window.hottestNodeCpu": (d) => d.summary.steadyState.hottestNodeCpu,
  "window.averageNodeCpu": (d) => d.summary.steadyState.averageNodeCpu,
  "window.writeP99Ms": (d) => d.summary.steadyState.writeP99Ms,
  "cycle.peakCpu": (d) => d.summary.steadyState.hottestNodeCpu,
  "cycle.troughCpu": (d) => d.summary.cycle?.averageNodeCpu.trough,
  "autoscaler.minNodes": (d) => d.summary.cycle?.autoscaler.minNodes,
  "autoscaler.maxNodes": (d) => d.summary.cycle?.autoscaler.maxNodes,
  "autoscaler.reactsWithinWindow": (d) => d.summary.cycle?.autoscaler.followsPeak,
  // Every count of a 2x cluster is even (issue 39).
  nodesNeededEven: (d) =>
    [d.summary.guidance.nodesNeeded.cpu, d.summary.guidance.nodesNeeded.storage].every(
      (nodes) => nodes === null || nodes % 2 === 0,
    ),
  sizingDimension: (d) =>
    d.summary.guidance.nodesNeeded.storage >= (d.summary.guidance.nodesNeeded.cpu ?? 0) ? "storage" : "cpu",
  costPerMonthUsd: (d, c) =>
    monthlyCost(
      c.scenario,
      d.summary.guidance.nodesNeeded.total ?? d.nodes,
      d.storage,
      d.summary.guidance.storage.bytes,
    ).total,
  retentionSource: (_, c) => {
    const retention = impliedRetention(c.scenario);
    return retention?.source === "reads" ? `read:${retention.read}` : retention?.source;
  },
  "summary.reads[latest-100].pointsReturnedPerRead": (d, c) => {
    const read = d.summary.reads.find((each) => each.name === "latest-100")!;
    const points = c.scenario.workload.groups.reduce((sum, group) => sum + group.writesPerS, 0);
    return read.rowsReturnedPerRead * (points / d.summary.writes.perS);
  },
  "atGrowth.averageNodeCpu": (d, c) =>
    designOf(grown(c.check.file), d.design).summary.steadyState.averageNodeCpu,
  "atGrowth.verdict": (d, c) => verdict(designOf(grown(c.check.file), d.design).summary.guidance.meets),
  "summary.dataBoostReads[dashboard-30d].spuHoursPerMonth": (d) =>
    d.summary.dataBoostReads!.find((read) => read.name === "dashboard-30d")!.averageSpus * HOURS_PER_MONTH,
};

/** Advise: the expectations' names → `Advice` (recommendation, sizing, cost, storage options). */
const ADVISE: Record<string, (a: Advice, c: Context) => unknown> = {
  "recommended.name": (a) => a.recommended?.candidate.name,
  "recommended.nodes": (a) => a.recommended?.nodes,
  "recommended.meetsTargets": (a) => a.recommended !== undefined && meetsTargets(a.recommended),
  "recommended.keyChanged": (a) => keyChanges(a.recommended).length > 0,
  "recommended.batch": (a) => batchOf(a.recommended),
  "recommended.costPerMonthUsd": (a) => a.recommended?.cost?.total,
  "candidates[as-is].headroom.breaksAt": (a) =>
    a.candidates.flatMap((each) =>
      each.candidate.name === "as-is" && each.kind === "judged" && each.headroom?.breaksAt
        ? [each.headroom.breaksAt.writesPerS]
        : [],
    )[0],
  "costPerMonthUsd.fixedAtPeak": (a) => a.recommended?.cost?.total,
  // Not an output yet: pricing the autoscaled range is the advisor's open item (see the case).
  "costPerMonthUsd.autoscaled": (a) => a.recommended?.autoscaled?.billedCost.total,
  nodesToday: (a) => a.recommended?.sizing?.today.total,
  "nodesToday.cpu": (a) => a.recommended?.sizing?.today.cpu,
  "nodesToday.storage": (a) => a.recommended?.sizing?.today.storage,
  "nodesAtGrowth.cpu": (a) => a.recommended?.sizing?.atGrowth.cpu,
  "nodesAtGrowth.storage": (a) => a.recommended?.sizing?.atGrowth.storage,
  "nodesAtGrowth/nodesToday": (a) => {
    const sizing = a.recommended?.sizing;
    return sizing && sizing.today.total !== null && sizing.atGrowth.total !== null
      ? sizing.atGrowth.total / sizing.today.total
      : undefined;
  },
  hddOffered: (a) => a.storageOptions?.hdd?.readsTolerate === true,
  "cheapest.storage": (a) => storageTrade(a)?.storage,
  "cheapest.savingPerMonthUsd": (a) => storageTrade(a)?.saving,
  "candidates[batch-*].nodesNeeded.storage": (a) =>
    a.candidates
      .filter((each) => batchOf(each) !== null)
      .map((each) => (each.kind === "judged" ? each.sizing.today.storage : undefined)),
  "decision.pointsToSalting": pointsToSalting,
  "exportTrade.shown": (a) => a.storageOptions?.keepFewerDays !== undefined,
  "hdd.nodes": (a) => a.storageOptions?.hdd?.nodes,
  "hdd.costPerMonthUsd": (a) => a.storageOptions?.hdd?.cost?.total,
  "analytical.dataBoost.nodes": (a) => a.analytical?.dataBoost?.nodes,
  "analytical.dataBoost.spuHoursPerMonth": (a) => a.analytical?.dataBoost?.spuHoursPerMonth,
  "analytical.dataBoost.costPerMonthUsd": (a) => a.analytical?.dataBoost?.costPerMonth,
  "analytical.changeStreams.nodes": (a) => a.analytical?.changeStreams.nodes,
  "analytical.changeStreams.bigQueryStorageGiB": (a) => a.analytical?.changeStreams.bigQueryStorageGiB,
  "analytical.changeStreams.bigQueryScannedTiBPerMonth": (a) =>
    a.analytical?.changeStreams.bigQueryScannedTiBPerMonth,
  "analytical.changeStreams.costPerMonthUsd": (a) => a.analytical?.changeStreams.costPerMonth,
  "analytical.parquet.costPerMonthUsd": (a) => a.analytical?.parquet.costPerMonth,
  "analytical.cheapestPriced": (a) => a.analytical?.cheapestPriced,
  pricesUsed: (a) =>
    Object.fromEntries(
      a.pricesUsed
        .filter((used) =>
          [
            "bigtable.nodeHour",
            "bigtable.dataBoostSpuHour",
            "dataflow.changeStreamJobMonth",
            "bigquery.activeLogicalGiBMonth",
            "bigquery.onDemandTiB",
          ].includes(used.id),
        )
        .map((used) => [used.id, used.origin]),
    ),
};

/** Lab: the expectations' names → `LabVerdict` (calibration, and each design judged under it). */
const LAB: Record<string, (l: LabVerdict, c: Context) => unknown> = {
  "calibration.fits": (l) => l.calibration?.fit.status === "fitted",
  "calibration.effectiveWritesPerNode256B": (l) =>
    fittedConstant(l, "cluster.capacity.writesPerS", MODEL_CONSTANTS.ssdWritesPerS.value) /
    sizeFactor(fittedConstant(l, "cluster.fixedCostShare", MODEL_CONSTANTS.fixedCostShare.value), 256),
  "calibration.fitted.cluster.capacity.writesPerS": (l) =>
    fittedConstant(l, "cluster.capacity.writesPerS", MODEL_CONSTANTS.ssdWritesPerS.value),
  "calibration.defaultsWithinFittedSet": (l) => {
    const fit = fitted(l);
    return fit !== undefined && fit.range.low <= 0 && fit.range.high >= 0;
  },
  // The figure the fit could not reproduce: the unfitted one it disagrees on, or the one fitted.
  "calibration.unreproducedFigure": (l) => {
    const calibration = l.calibration!;
    if (calibration.fit.status === "unreproduced") return calibration.metric;
    return calibration.fit.otherMetric?.metric;
  },
  // A hottest node above what the model can make of the workload: load on a row or narrow range.
  "calibration.suggestion": (l) => {
    const calibration = l.calibration!;
    const hotter =
      calibration.fit.status === "unreproduced"
        ? calibration.metric === "hottestCpu" && calibration.fit.side === "above"
        : calibration.fit.otherMetric?.metric === "hottestCpu" &&
          calibration.fit.otherMetric.observed > calibration.fit.otherMetric.simulated;
    return hotter ? "hot row or narrow key range" : undefined;
  },
  rangeUsed: (l) => (fitted(l) ? "calibrated" : "uncalibrated"),
  "calibrated.averageNodeCpu": (l, c) => {
    const candidate = labCandidate(l, c.check.design);
    const ends = l.ends.get(candidate)!;
    return [
      candidate.result.summary.steadyState.averageNodeCpu,
      ends.averageNodeCpu.optimistic,
      ends.averageNodeCpu.pessimistic,
    ];
  },
  "calibrated.verdict": (l, c) => {
    const meets = Object.values(l.ends.get(labCandidate(l, c.check.design))!.meets);
    return meets.every(Boolean) ? "meets" : meets.some(Boolean) ? "flips" : "misses";
  },
  verdictSameAsDefaults: (l, c) =>
    labCandidate(l, c.check.design).result.summary.guidance.meets ===
    designOf(simulated(c.check.file), c.check.design).summary.guidance.meets,
  verdict: (l, c) => verdict(labCandidate(l, c.check.design).result.summary.guidance.meets),
  rowSizeWarnings: (l, c) => {
    const row = labCandidate(l, c.check.design).result.summary.guidance.largestRow!;
    return { rows: row.ok ? [] : [row.group], bytes: row.bytes };
  },
  "decision.pointsToSalting": (l) => pointsToSalting(l.advice),
  "recommended.name": (l) => l.advice.recommended?.candidate.name,
  "candidates[salt-64].lossCode": (l) => lossReason(labCandidate(l, "salt-64"), l.advice.recommended).code,
};

/** A figure by its expectation name: the mapping table, else the same path in the design's result. */
function figure(c: Context, path: string): unknown {
  const { command, file, design } = c.check;
  if (command === "simulate") {
    const result = designOf(simulated(file), design);
    return path in SIMULATE ? SIMULATE[path]!(result, c) : at(result, path);
  }
  if (command === "advise") {
    // The cluster options (issue 39) were named after the output they check.
    if (path.startsWith("clusterOptions.")) return atPath(advised(file), path);
    if (!(path in ADVISE)) throw new Error(`no mapping for advise figure ${path}`);
    return ADVISE[path]!(advised(file), c);
  }
  const lab = judged(file);
  return path in LAB ? LAB[path]!(lab, c) : at(labCandidate(lab, design).result, path);
}

/** `a.b.c` in any object; throws when a step is missing (null is a value). */
function atPath(root: unknown, path: string): unknown {
  let value = root;
  for (const part of path.split(".")) {
    if (value === null || value === undefined) throw new Error(`no ${path}`);
    value = (value as Record<string, unknown>)[part];
  }
  if (value === undefined) throw new Error(`no ${path}`);
  return value;
}

/** `summary.a.b`, `summary.reads[name].field` in a design result. */
function at(result: DesignResult, path: string): unknown {
  let value: unknown = result;
  for (const part of path.split(".")) {
    const indexed = /^(\w+)\[([^\]]+)\]$/.exec(part);
    if (indexed) {
      const list = (value as Record<string, { name: string }[]>)[indexed[1]!]!;
      value = list.find((each) => each.name === indexed[2]);
    } else value = (value as Record<string, unknown>)[part];
    if (value === undefined) throw new Error(`no ${path} in the result of ${result.design}`);
  }
  return value;
}

/** Floating-point slack on bounds: 0.9 computed as 0.8999999999999 is 0.9. */
const EPS = 1e-9;

interface Bound {
  min?: number;
  max?: number;
  equals?: unknown;
  maxFactorOf?: { field: string; factor: number };
  minFactorOfDesign?: { design: string; field: string; factor: number };
  maxFactorOfDesign?: { design: string; field: string; factor: number };
  lessThanDesign?: string;
  withinOfDesign?: { design: string; relative: number };
}

const otherDesign = (c: Context, design: string, path: string) =>
  figure({ ...c, check: { ...c.check, design } }, path) as number;

function assertBound(c: Context, path: string, value: unknown, bound: Bound) {
  const label = `${c.check.case} ${c.check.design} ${path}`;
  const values = Array.isArray(value) ? (value as number[]) : [value as number];
  for (const each of values) {
    if (bound.min !== undefined) expect(each, label).toBeGreaterThanOrEqual(bound.min - EPS);
    if (bound.max !== undefined) expect(each, label).toBeLessThanOrEqual(bound.max + EPS);
  }
  if ("equals" in bound) expect(value, label).toEqual(bound.equals);
  const n = value as number;
  if (bound.maxFactorOf)
    expect(n, label).toBeLessThanOrEqual(
      bound.maxFactorOf.factor * (figure(c, bound.maxFactorOf.field) as number) + EPS,
    );
  if (bound.minFactorOfDesign) {
    const { design, field, factor } = bound.minFactorOfDesign;
    expect(n, label).toBeGreaterThanOrEqual(factor * otherDesign(c, design, field));
  }
  if (bound.maxFactorOfDesign) {
    const { design, field, factor } = bound.maxFactorOfDesign;
    expect(n, label).toBeLessThanOrEqual(factor * otherDesign(c, design, field) + EPS);
  }
  if (bound.lessThanDesign) expect(n, label).toBeLessThan(otherDesign(c, bound.lessThanDesign, path));
  if (bound.withinOfDesign) {
    const other = otherDesign(c, bound.withinOfDesign.design, path);
    expect(Math.abs(n - other), label).toBeLessThanOrEqual(bound.withinOfDesign.relative * other);
  }
}

/** One expectation: a bound, a verdict or exact value, or one of the cross-file / per-end forms. */
function assertExpectation(c: Context, path: string, expected: unknown) {
  const label = `${c.check.case} ${c.check.design} ${path}`;
  if (path === "sameAsFile") return assertSameAsFile(c, expected as SameAsFile);
  if (path.startsWith("everyModelEnd."))
    return assertEveryEnd(c, path.slice("everyModelEnd.".length), expected);
  if (path === "exportTrade.nodes") return assertExportFormula(c);
  if (path.startsWith("exportTrade[keepDays=")) return assertExportAt(c, path, expected as Bound);
  if (path === "rowSizeWarnings") {
    const { rows, overBytes } = expected as { rows: string[]; overBytes: number };
    const warned = figure(c, path) as { rows: string[]; bytes: number };
    expect(warned.rows, label).toEqual(rows);
    expect(warned.bytes, label).toBeGreaterThan(overBytes);
    return;
  }
  const value = figure(c, path);
  if (path === "candidates[as-is].headroom.breaksAt" && value === undefined) return; // "if a breaks-at figure is given" (README 23-2)
  if (path === "candidates[batch-*].nodesNeeded.storage") {
    for (const storage of value as number[]) assertBound(c, path, storage, expected as Bound);
    return;
  }
  if (typeof expected !== "object" || expected === null) return expect(value, label).toEqual(expected);
  assertBound(c, path, value, expected as Bound);
}

interface SameAsFile {
  file: string;
  fields: string[];
  cpuWithin?: number;
}

function assertSameAsFile(c: Context, same: SameAsFile) {
  const other: Context = { check: { ...c.check, file: same.file }, scenario: scenarioOf(same.file) };
  for (const field of same.fields)
    expect(figure(c, field), `${field} as in ${same.file}`).toEqual(figure(other, field));
  if (same.cpuWithin === undefined) return;
  for (const field of ["cycle.peakCpu", "cycle.troughCpu"]) {
    const gap = Math.abs((figure(c, field) as number) - (figure(other, field) as number));
    expect(gap, `${field} as in ${same.file}`).toBeLessThanOrEqual(same.cpuWithin);
  }
}

/** The bound at the defaults and at both ends of the model's constants (`--sensitivity`). */
function assertEveryEnd(c: Context, path: string, expected: unknown) {
  const { design, file } = c.check;
  const { maxFactorOfDesign } = expected as Required<Pick<Bound, "maxFactorOfDesign">>;
  const spans = ranged(file);
  const of = (name: string) => spans.designs.find((each) => each.design === name)!;
  const field = path.split(".").at(-1) as "averageNodeCpu";
  expect(field).toBe(maxFactorOfDesign.field.split(".").at(-1));
  for (const end of ["optimistic", "pessimistic"] as const) {
    const mine = of(design)[field][end]!;
    const theirs = of(maxFactorOfDesign.design)[field][end]!;
    expect(mine, `${c.check.case} ${design} ${path} (${end})`).toBeLessThanOrEqual(
      maxFactorOfDesign.factor * theirs,
    );
  }
  const defaults = (name: string) => designOf(spans.result, name).summary.steadyState.averageNodeCpu;
  expect(defaults(design)).toBeLessThanOrEqual(maxFactorOfDesign.factor * defaults(maxFactorOfDesign.design));
}

/** Keep N days, export the rest: nodes = max(CPU nodes, ⌈bytes × N/retention ÷ per-node target⌉) ± 1, $ within 10 %. */
function assertExportFormula(c: Context) {
  const advice = advised(c.check.file);
  const keep = advice.storageOptions!.keepFewerDays!;
  const cpuNodes = advice.recommended!.sizing!.today.cpu!;
  const bytes = advice.recommended!.sizing!.today.storedBytes;
  const plannedPerNode = 5 * TiB * 0.7;
  const expectedNodes = Math.max(
    cpuNodes,
    Math.ceil((bytes * keep.keepS) / keep.retentionS / plannedPerNode),
  );
  expect(Math.abs(keep.nodes - expectedNodes)).toBeLessThanOrEqual(1);
  const dollars = expectedNodes * 0.65 * 730 + ((bytes * keep.keepS) / keep.retentionS / 2 ** 30) * 0.17;
  expect(Math.abs(keep.cost.total - dollars)).toBeLessThanOrEqual(0.1 * dollars);
}

/** The README: "keepDays=7 applies if the lab shows that N; otherwise check the formula for the N it shows". */
function assertExportAt(c: Context, path: string, bound: Bound) {
  const keep = advised(c.check.file).storageOptions!.keepFewerDays!;
  const days = Number(/keepDays=(\d+)/.exec(path)![1]);
  if (keep.keepS !== days * DAY_S) return assertExportFormula(c);
  const value = path.endsWith(".nodes") ? keep.nodes : keep.cost.total;
  assertBound(c, path, value, bound);
}

/**
 * Where the expectation was wrong, the bound asserted instead and why (README.md, "Results"). The
 * expected value stays as written in expected.json.
 */
const CORRECTIONS: Record<string, { bound: unknown; why: string }> = {
  "39-c|salt-64|candidates[salt-64].lossCode": {
    // Expected `more-client-cores`, assuming both salts meet the CPU targets on 12 nodes from the
    // writes alone (1.43 nodes). The hand figure left out the cluster's side of the fan-out:
    // 2,000 latest-100 reads/s × 64 ranges = 128,000 range reads/s, 7.5 nodes at 17,000 reads/s
    // per node, so (1.43 + 7.5) / 12 = 74 % > 70 % (the run: 80 %). salt-64 misses the average CPU
    // target and loses for needing more nodes (14) before any client cores are weighed; salt-16 is
    // recommended as written, and the client cores (11.7 against 37.3) hold as written.
    bound: { equals: "needs-more-nodes" },
    why: "64 ranges per read at 2,000 reads/s cost the cluster 7.5 nodes of range reads: salt-64 misses the average CPU target on 12 nodes",
  },
  "23-5|batch-10s|summary.steadyState.averageNodeCpu": {
    // Expected 11–15 % and below as-is, from sizeFactor(10 KB) = 0.5 + 0.5 × 10 = 5.5: a 10 KB row
    // costing 55 % of ten 1 KB rows, cheaper per byte than a 1 KB row. Issue 23 point 8 forbids that
    // at any end (nothing published lets a node move more bytes per second in bigger rows), so a
    // 10 KB row costs 10 (writes 1.43 node, as unbatched) and latest-100's 10 rows of 10 KB still
    // move 100 KB: 2.44 nodes, 20.3 %. Batching here saves rows, not CPU; the check that batching is
    // no worse than 1.3 × as-is holds at the defaults (the per-end bound: the next entry).
    bound: {
      min: 0.18,
      max: 0.23,
      maxFactorOfDesign: { design: "as-is", field: "summary.steadyState.averageNodeCpu", factor: 1.3 },
    },
    why: "a 10 KB row costs its bytes at the 1 KB rate (issue 23 point 8), not 5.5 × a 1 KB row",
  },
  "23-5|batch-10s|everyModelEnd.summary.steadyState.averageNodeCpu": {
    // Expected ≤ 1.3 × as-is at every end (against today's 3×, rows counted instead of points). By
    // hand under issue 23 point 8 at the pessimistic end (W = R = 10,000): writes 2.0 nodes either
    // way; latest-100 reads 1,000 × (10/10,000 + 9 × 10,240 B / 220 MB/s) = 1.42 nodes batched
    // against 1,000 × (1/10,000 + 99 × 1,024 B / 220 MB/s) = 0.56 unbatched: 3.42 / 2.56 = 1.34 —
    // the newest row of each read is priced as a point read of 10 KB. 1.4 still catches the 3×.
    bound: {
      maxFactorOfDesign: { design: "as-is", field: "summary.steadyState.averageNodeCpu", factor: 1.4 },
    },
    why: "under issue 23 point 8 the hand figure at the pessimistic end is 1.34 × as-is, not ≤ 1.3",
  },
  "24-5|as-is|summary.guidance.nodesNeeded.cpu": {
    // Expected null from 0.90 + 0.05: the hot row sharing its node with a twelfth of the rest. The
    // balancer moves the rest off the hot node (as Bigtable's does), leaving the row alone at
    // 12,600 / 14,000 = exactly 90 %, Google's limit: 3 nodes then meet it at the knife edge, and at
    // any W below 14,000 (the calibrated range's other side) no count does. What must hold: no node
    // count brings the hot node below 90 %.
    bound: "hot node stays at or above 90 % on any count",
    why: "the balancer isolates the hot row at exactly the 90 % limit",
  },
  "39-b|as-is-2x|verdict": {
    // Expected "meets" from the CPU alone (row 64 %, average 53.6 %: both as computed by hand). The
    // scenario keeps the counter's cells for a day, so its one row grows to 18,000 × 1,024 × 86,400
    // = 1.6 TB, past Bigtable's 256 MiB row limit: the verdict misses on the row, on any nodes. What
    // must hold: 2x meets both CPU targets, and the row is flagged.
    bound: "CPU targets met on 2x nodes; the counter's row flagged over the row limit",
    why: "the scenario's 1-day retention builds a 1.6 TB row; the row limit, not the CPU, fails the verdict",
  },
};

function assertCorrected(c: Context, path: string, corrected: { bound: unknown }) {
  if (c.check.case === "39-b" && path === "verdict") {
    const guidance = designOf(simulated(c.check.file), c.check.design).summary.guidance;
    expect(guidance.averageCpu.ok && guidance.hottestCpu.ok).toBe(true);
    expect(guidance.largestRow).toMatchObject({ group: "counter", ok: false });
    return;
  }
  if (path === "summary.guidance.nodesNeeded.cpu") {
    const cpu = figure(c, path) as number | null;
    const lab = judged(c.check.file);
    const hottest = [c.check.design, "as-is-on-24-nodes"].map(
      (design) => labCandidate(lab, design).result.summary.steadyState.hottestNodeCpu,
    );
    for (const each of hottest) expect(each).toBeGreaterThanOrEqual(0.9 - EPS);
    if (cpu !== null) expect(hottest[0]).toBeLessThanOrEqual(0.9 + EPS);
    return;
  }
  assertBound(c, path, figure(c, path), corrected.bound as Bound);
}

describe("lab checks (examples/checks/expected.json)", () => {
  for (const check of CHECKS) {
    const paths = Object.keys(check.expect);
    const name = `${check.case} ${check.file} ${check.command} ${check.design}: ${paths.join(", ")}`;
    it(name, () => {
      const c: Context = { check, scenario: scenarioOf(check.file) };
      for (const [path, expected] of Object.entries(check.expect)) {
        const corrected = CORRECTIONS[`${check.case}|${check.design}|${path}`];
        if (corrected && path.startsWith("everyModelEnd."))
          assertEveryEnd(c, path.slice("everyModelEnd.".length), corrected.bound);
        else if (corrected) assertCorrected(c, path, corrected);
        else assertExpectation(c, path, expected);
      }
    }, 120_000);
  }
});
