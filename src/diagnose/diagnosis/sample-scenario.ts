/**
 * The key sample a diagnosis read, through the advisor's key-structure inference, and the scenario
 * that puts the inferred key in front of the simulator as the current design. Pure.
 */
import { type SplitKeySample, splitKeySample } from "../../advise/infer/key-sample.js";
import { inferKeyStructure, type KeyStructure } from "../../advise/infer/key-structure.js";
import type { WorkloadRates } from "../../advise/infer/rates.js";
import { scenarioFromSample, writerComponents } from "../../advise/infer/sample-scenario.js";
import {
  type Observed,
  type Scenario,
  validateScenario,
  type WorkloadGroup,
} from "../../sim/scenario/scenario.js";
import { printable } from "../decode/decoded-boundary.js";
import { NARROW_MAX_ENTITIES } from "./classify.js";

export interface InferredKey {
  sample: SplitKeySample;
  structure: KeyStructure;
  /** The sampled key's row (its components), as the inference split it; undefined for a key it skipped. */
  rowOf: (key: Buffer) => string[] | undefined;
}

/** Keys as the advisor reads them: text when every key is printable, else each byte one Latin-1 character. */
export function keySampleLines(keys: readonly Buffer[]): string[] {
  const texts = keys.map(printable);
  return texts.every((text) => text !== undefined)
    ? (texts as string[])
    : keys.map((key) => key.toString("latin1"));
}

/** Undefined for an empty sample (an empty table has no key to infer). */
export function inferSampledKey(keys: readonly Buffer[]): InferredKey | undefined {
  if (keys.length === 0) return undefined;
  const lines = keySampleLines(keys);
  const sample = splitKeySample(lines);
  // Rows follow the keys in order, less those skipped; a skipped key is found by its text.
  const rows = new Map<string, string[]>();
  const byText =
    sample.skipped === 0
      ? undefined
      : new Map(sample.rows.map((row) => [row.join(sample.separator ?? ""), row]));
  for (const [index, key] of keys.entries()) {
    const row = byText ? byText.get(lines[index]!) : sample.rows[index];
    if (row) rows.set(key.toString("hex"), row);
  }
  return {
    sample,
    structure: inferKeyStructure(sample),
    rowOf: (key) => rows.get(key.toString("hex")),
  };
}

/** A hot range's writers as a workload group of their own, at the rate their CPU stood for. */
export interface HotGroupInput {
  /** The sampled keys inside the hot range (and its boundary keys). */
  keys: readonly Buffer[];
  writesPerS: number;
}

export interface DiagnosisScenarioOptions {
  /** Writes per second of the rest of the table (0: the hot groups are all the evidence shows). */
  restWritesPerS: number;
  reads: WorkloadRates["reads"];
  /** Where the rates come from, for the scenario's description. */
  ratesSource: "given" | "implied by the hot tablets";
  /** The hot ranges' writers, each kept as its own group (empty: the sample's spread is the story). */
  hot: readonly HotGroupInput[];
  /** What the cluster showed at the peak, for the lab to calibrate to (absent: the scenario does not model the heat). */
  observed?: Observed;
  nodes: number;
  storage: "ssd" | "hdd";
  rowBytes?: number;
  table: string;
}

/**
 * At most this many entities in a hot range get a group each (with its share of the range's
 * writes by its sampled rows); more share one group. The same bound as a narrow range's.
 */
const GROUP_PER_ENTITY_AT_MOST = NARROW_MAX_ENTITIES;

const rowId = (row: readonly string[]) => row.join("\u0000");

/** The hot keys' rows as the sample's inference split them. */
const hotRows = (key: InferredKey, keys: readonly Buffer[]): string[][] =>
  keys.flatMap((each) => {
    const row = key.rowOf(each);
    return row ? [row] : [];
  });

type Group = WorkloadGroup;

/** The groups that write one hot range: its writers' values as literals (few) or picked per write (many). */
function hotGroups(
  key: InferredKey,
  hot: HotGroupInput,
  index: number,
  base: Group["fields"],
  spread: (sample: SplitKeySample, writesPerS: number) => Group[],
): Group[] {
  const writers = writerComponents(key.structure);
  const rows = hotRows(key, hot.keys);
  if (writers.length === 0 || rows.length === 0) return [];
  // Each entity's writer values and how many of the range's rows it has.
  const byEntity = new Map<string, { values: string[]; rows: number }>();
  for (const row of rows) {
    const values = writers.map((component) => row[component.index]!);
    const id = rowId(values);
    const entity = byEntity.get(id);
    if (entity) entity.rows++;
    else byEntity.set(id, { values, rows: 1 });
  }
  const label = `hot range ${index + 1}`;
  if (byEntity.size <= GROUP_PER_ENTITY_AT_MOST)
    return [...byEntity.values()].map(({ values, rows: entityRows }) => ({
      name: `${label}: ${values.join(" ")}`,
      entities: 1,
      fields: {
        ...base,
        ...Object.fromEntries(writers.map((component, at) => [component.name, values[at]!])),
      },
      writesPerS: (hot.writesPerS * entityRows) / rows.length,
      arrival: { kind: "steady" as const },
    }));
  // Many entities: spread as the sample spreads them, over this range's rows only.
  return spread({ ...key.sample, rows }, hot.writesPerS).map((group) => ({
    ...group,
    name: `${label}: ${group.name}`,
  }));
}

export function diagnosisScenario(key: InferredKey, options: DiagnosisScenarioOptions): Scenario {
  const hotIds = new Set(options.hot.flatMap((hot) => hotRows(key, hot.keys).map(rowId)));
  const restRows = key.sample.rows.filter((row) => !hotIds.has(rowId(row)));
  const hotWrites = options.hot.reduce((sum, hot) => sum + hot.writesPerS, 0);
  // The rest of the table as the sample spreads it (its hot rows left out: they are the hot groups').
  const fromSample = (sample: SplitKeySample, writesPerS: number) =>
    scenarioFromSample(sample, key.structure, {
      rates: { writesPerS, reads: options.reads },
      nodes: options.nodes,
      storage: options.storage,
      ...(options.rowBytes === undefined ? {} : { rowBytes: options.rowBytes }),
      name: `diagnose-${options.table}`,
    });
  // The rest of the table as the sample spreads it (its hot rows left out: they are the hot groups').
  const scenario = fromSample(
    restRows.length > 0 && options.restWritesPerS > 0 ? { ...key.sample, rows: restRows } : key.sample,
    options.restWritesPerS > 0 ? options.restWritesPerS : hotWrites,
  );
  const writers = new Set(writerComponents(key.structure).map((component) => component.name));
  const shared = Object.fromEntries(
    Object.entries(scenario.workload.groups[0]!.fields).filter(([field]) => !writers.has(field)),
  );
  const hot = options.hot.flatMap((each, index) =>
    hotGroups(
      key,
      each,
      index,
      shared,
      (sample, writesPerS) => fromSample(sample, writesPerS).workload.groups,
    ),
  );
  const rest = options.restWritesPerS > 0 || hot.length === 0 ? scenario.workload.groups : [];
  const groups = [...hot, ...rest];
  const busiest = groups.reduce((a, b) => (b.writesPerS > a.writesPerS ? b : a));
  const rates =
    options.ratesSource === "given"
      ? "Rates as given; the hot ranges' writers keep the rate their CPU stood for."
      : "Write rate implied by the hot tablets at their peak (each range's CPU share of a node, in writes a node carries at the model's defaults): a floor, since it counts only the hot ranges; pass --rates for the real figures.";
  return validateScenario({
    ...scenario,
    source: `keyspread diagnose of table ${options.table}`,
    description: `${scenario.description} ${hot.length ? `The hot ranges' writers are groups of their own (${hot.map((group) => group.name).join("; ")}). ` : ""}${rates}`,
    ...(options.observed ? { observed: options.observed } : {}),
    workload: {
      ...scenario.workload,
      groups,
      reads: scenario.workload.reads.map((read) =>
        groups.some((group) => group.name === read.group) ? read : { ...read, group: busiest.name },
      ),
    },
  });
}
