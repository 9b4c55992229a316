/**
 * A diagnosis from the evidence a live table gives: hot tablets (or, on the embedded store, the
 * hot ranges of its access log), tablet boundaries and sizes, and a key sample — decoded through
 * the schema, classified, and turned into a ready scenario. Pure: the gatherers do the I/O.
 */

import type { KeyStructure } from "../../advise/infer/key-structure.js";
import type { WorkloadRates } from "../../advise/infer/rates.js";
import type { KeySchema } from "../../keys/types.js";
import type { Observed, Scenario } from "../../sim/scenario/scenario.js";
import { isReserved } from "../../table/schema-guard.js";
import { printable } from "../decode/decoded-boundary.js";
import { type DecodedHotRange, decodeHotRange } from "../decode/decoded-hot-range.js";
import { entityFields } from "../decode/entities.js";
import { type HotTablet, hotRanges, inHotRange } from "../decode/hot-tablet.js";
import { type RowKeySample, type TableShares, tableShares } from "../decode/tablet-sizes.js";
import { classify, type Diagnosis } from "./classify.js";
import {
  checkCarried,
  type PeakHeat,
  peakHeat,
  rangeIdOf,
  writesForCpu,
  writesPerNode,
} from "./implied-rates.js";
import { checkSchemaFits, DiagnoseRefusal, type RefusalCode } from "./refusal.js";
import { type DiagnosisScenarioOptions, diagnosisScenario, inferSampledKey } from "./sample-scenario.js";

export type DiagnoseStoreKind = "bigtable" | "embedded";

/** Where the heat figures come from: Bigtable's hot-tablets API, or an access log (no such API). */
export type HeatSource =
  | {
      kind: "hot-tablets";
      cluster: string;
      start: Date;
      end: Date;
      /** Tables a recorded answer held tablets of besides this one (a cluster's answer covers all its tables). */
      otherTables?: { table: string; tablets: number }[];
    }
  | { kind: "access-log"; records: number };

export interface TableEvidence {
  store: DiagnoseStoreKind;
  table: string;
  heat: HeatSource;
  /** Of this table only. On an access log, the share of logged operations stands in for CPU %. */
  hotTablets: readonly HotTablet[];
  /** SampleRowKeys (Bigtable); absent where the store has no tablets. */
  rowKeySamples?: readonly RowKeySample[];
  /** Row keys read with a row-sample filter (or the embedded store's even sample). */
  keySample: readonly Buffer[];
  /** The fingerprint keyspread's schema row records, when the table has one. */
  schemaFingerprint?: string;
}

export interface DiagnoseOptions {
  /** `--rates`; without it the hot tablets imply a write rate. */
  rates?: WorkloadRates;
  /** Nodes of the cluster, for the scenario (without them there is no scenario, and the report says why). */
  nodes?: number;
  storage?: "ssd" | "hdd";
  /** Bytes per row for the scenario (default the simulator's 1 KB). */
  rowBytes?: number;
  /** Read the evidence even with a schema that does not fit it (refusal.ts). */
  force?: boolean;
}

/** Keys of the sample the schema cannot decode: counted, a few shown raw. */
export interface UndecodedKeys {
  count: number;
  /** A few, in hex, and as text when printable. */
  examples: { hex: string; text?: string }[];
}

export interface DiagnoseReport {
  store: DiagnoseStoreKind;
  table: string;
  /** The schema's salt buckets (1: unsalted, and the words leave buckets out). */
  bucketCount: number;
  heat: HeatSource;
  hotRanges: DecodedHotRange[];
  shares: TableShares | undefined;
  sample: {
    keys: number;
    undecoded: UndecodedKeys;
    /** Keys of keyspread's own reserved range (its schema row) the sample read: left out, not undecodable. */
    reserved: number;
    structure: KeyStructure | undefined;
  };
  /** Refusals `force` overrode: the diagnosis read the evidence anyway. */
  forced: { code: RefusalCode; message: string }[];
  diagnosis: Diagnosis;
  /** Undefined when there is nothing to model (no sampled keys, or no rates given or implied), with the reason. */
  scenario: Scenario | undefined;
  scenarioProblem: ScenarioProblem | undefined;
}

/** Why a diagnosis writes no scenario. */
export type ScenarioProblem =
  | { kind: "empty-sample" }
  | { kind: "no-nodes" }
  /** No rates given, and no hot tablet to imply a write rate. */
  | { kind: "no-rates" }
  /** `--rates` gave fewer writes/s than the hot ranges alone carried at the peak (their CPU share × a node's writes/s). */
  | { kind: "rates-below-hot-ranges"; givenWritesPerS: number; hotWritesPerS: number; nodeWritesPerS: number }
  /** The scenario built from the evidence does not validate. */
  | { kind: "invalid-scenario"; message: string };

/** Given rates below what the hot ranges alone carried: the figures, for the report. */
class RatesBelowHotRanges extends Error {
  constructor(readonly problem: Extract<ScenarioProblem, { kind: "rates-below-hot-ranges" }>) {
    super(
      `--rates writes=${problem.givenWritesPerS}: below the hot ranges' ${problem.hotWritesPerS} writes/s`,
    );
  }
}

const UNDECODED_EXAMPLES = 5;

function undecodedKeys(schema: KeySchema, keys: readonly Buffer[]): UndecodedKeys {
  const failed = keys.filter((key) => {
    try {
      schema.decode(key);
      return false;
    } catch {
      return true;
    }
  });
  return {
    count: failed.length,
    examples: failed.slice(0, UNDECODED_EXAMPLES).map((key) => {
      const text = printable(key);
      return { hex: key.toString("hex"), ...(text === undefined ? {} : { text }) };
    }),
  };
}

/** Kinds whose heat is in the hot ranges' own writers: the scenario keeps them as groups of their own. */
const HOT_WRITER_KINDS: ReadonlySet<Diagnosis["kind"]> = new Set([
  "one-hot-entity",
  "narrow-hot-range",
  "wide-hot-range",
]);
/** Kinds the scenario models as the sample spreads its writes: a tail, an even load. */
const SPREAD_KINDS: ReadonlySet<Diagnosis["kind"]> = new Set(["moving-tail", "even-near-capacity"]);

/**
 * Kinds whose load the nodes share once split and balanced: the lab calibrates to the mean the
 * hot tablets add up to over the nodes (a floor: only the hot ranges are measured), not to one
 * tablet's CPU, which the balancer spreads.
 */
const SPREAD_LOAD_KINDS: ReadonlySet<Diagnosis["kind"]> = new Set(["even-near-capacity", "wide-hot-range"]);

const DEFAULT_ROW_BYTES = 1024;

/**
 * The scenario's load from the evidence: the hot ranges at the peak, each at the rate its CPU
 * stood for, as groups of their own (when their writers are the story); the rest of the table at
 * the given rate less theirs (none when the rates are implied: the hot tablets are all the
 * evidence shows); and what the cluster showed then, for the lab to calibrate to.
 */
function scenarioLoad(
  diagnosis: Diagnosis,
  ranges: readonly DecodedHotRange[],
  peak: PeakHeat | undefined,
  sample: readonly Buffer[],
  options: DiagnoseOptions & { nodes: number; storage: "ssd" | "hdd"; cpuMeasured: boolean },
): Pick<DiagnosisScenarioOptions, "hot" | "restWritesPerS" | "reads" | "observed"> & { observed?: Observed } {
  const rowBytes = options.rowBytes ?? DEFAULT_ROW_BYTES;
  const writes = (cpuPercent: number) => writesForCpu(cpuPercent, options.storage, rowBytes);
  const atPeak = new Map((peak?.ranges ?? []).map((range) => [range.id, range.cpuPercent]));
  const hot = HOT_WRITER_KINDS.has(diagnosis.kind)
    ? ranges.flatMap((range) => {
        const cpu = atPeak.get(rangeIdOf(range));
        if (cpu === undefined) return [];
        const inside = sample.filter((key) => inHotRange(range, key));
        const boundaries = [range.start, range.end].flatMap((boundary, at) =>
          boundary.kind === "decoded" ? [at === 0 ? range.startKey : range.endKey] : [],
        );
        return [{ keys: [...inside, ...boundaries], writesPerS: writes(cpu) }];
      })
    : [];
  const hotWrites = hot.reduce((sum, group) => sum + group.writesPerS, 0);
  const total = options.rates?.writesPerS ?? (peak ? writes(peak.totalCpuPercent) : 0);
  const restWritesPerS = hot.length === 0 ? total : options.rates ? total - hotWrites : 0;
  if (restWritesPerS < 0)
    throw new RatesBelowHotRanges({
      kind: "rates-below-hot-ranges",
      givenWritesPerS: total,
      hotWritesPerS: hotWrites,
      nodeWritesPerS: writesPerNode(options.storage, rowBytes),
    });
  const hottest = peak?.ranges[0]?.cpuPercent;
  // An access log's shares are of operations, not a node's CPU: nothing to calibrate to.
  const observed: Observed | undefined =
    !options.cpuMeasured ||
    peak === undefined ||
    hottest === undefined ||
    !(HOT_WRITER_KINDS.has(diagnosis.kind) || SPREAD_KINDS.has(diagnosis.kind))
      ? undefined
      : !SPREAD_LOAD_KINDS.has(diagnosis.kind)
        ? { nodes: options.nodes, hottestCpu: hottest / 100 }
        : // The hot tablets' sum is the nodes' mean only when they are the whole workload (rates implied).
          options.rates
          ? undefined
          : { nodes: options.nodes, averageCpu: peak.totalCpuPercent / 100 / options.nodes };
  return {
    hot,
    restWritesPerS,
    reads: options.rates?.reads ?? [],
    ...(observed ? { observed } : {}),
  };
}

export function diagnoseEvidence(
  schema: KeySchema,
  evidence: TableEvidence,
  options: DiagnoseOptions,
): DiagnoseReport {
  const ranges = hotRanges(evidence.hotTablets);
  const keySample = evidence.keySample.filter((key) => !isReserved(key));
  const undecoded = undecodedKeys(schema, keySample);
  const forced: DiagnoseReport["forced"] = [];
  try {
    checkSchemaFits(
      schema.fingerprint,
      { keys: keySample.length, undecoded: undecoded.count },
      evidence.schemaFingerprint,
    );
  } catch (error) {
    if (!(error instanceof DiagnoseRefusal && error.forcible && options.force)) throw error;
    forced.push({ code: error.code, message: error.message });
  }
  const decoded = ranges.map((range) => decodeHotRange(schema, range, keySample));
  // The hot ranges' boundary keys are keys of the table too: with them the inference knows a hot
  // range's writers even when the sample holds none of its rows.
  const boundaryKeys = decoded.flatMap((range) =>
    [range.start, range.end].flatMap((boundary, at) =>
      boundary.kind === "decoded" ? [at === 0 ? range.startKey : range.endKey] : [],
    ),
  );
  const inferred = keySample.length === 0 ? undefined : inferSampledKey([...keySample, ...boundaryKeys]);
  const diagnosis = classify({
    hotRanges: decoded,
    sampleKeys: new Set(keySample.map((key) => key.toString("hex"))).size,
    sequentialField: inferred?.structure.sequential?.name,
    entity: entityFields(schema),
  });
  const storage = options.storage ?? "ssd";
  const peak = peakHeat(evidence.hotTablets);
  if (peak && options.nodes !== undefined) checkCarried(peak, options.nodes);
  let scenario: Scenario | undefined;
  let scenarioProblem: ScenarioProblem | undefined;
  if (!inferred) scenarioProblem = { kind: "empty-sample" };
  else if (options.nodes === undefined) scenarioProblem = { kind: "no-nodes" };
  else if (!peak && !options.rates) scenarioProblem = { kind: "no-rates" };
  else {
    try {
      scenario = diagnosisScenario(inferred, {
        ...scenarioLoad(diagnosis, decoded, peak, keySample, {
          ...options,
          nodes: options.nodes,
          storage,
          cpuMeasured: evidence.heat.kind === "hot-tablets",
        }),
        ratesSource: options.rates ? "given" : "implied by the hot tablets",
        nodes: options.nodes,
        storage,
        ...(options.rowBytes === undefined ? {} : { rowBytes: options.rowBytes }),
        table: evidence.table,
      });
    } catch (error) {
      scenarioProblem =
        error instanceof RatesBelowHotRanges
          ? error.problem
          : { kind: "invalid-scenario", message: (error as Error).message };
    }
  }
  return {
    store: evidence.store,
    table: evidence.table,
    bucketCount: schema.bucketCount,
    heat: evidence.heat,
    hotRanges: decoded,
    shares: evidence.rowKeySamples ? tableShares(schema, evidence.rowKeySamples, keySample) : undefined,
    sample: {
      keys: keySample.length,
      undecoded,
      reserved: evidence.keySample.length - keySample.length,
      structure: inferred?.structure,
    },
    diagnosis,
    scenario,
    scenarioProblem,
    forced,
  };
}
