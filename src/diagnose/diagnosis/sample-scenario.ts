/**
 * The key sample a diagnosis read, through the advisor's key-structure inference, and the scenario
 * that puts the inferred key in front of the simulator as the current design. Pure.
 */
import { type SplitKeySample, splitKeySample } from "../../advise/infer/key-sample.js";
import { inferKeyStructure, type KeyStructure } from "../../advise/infer/key-structure.js";
import type { WorkloadRates } from "../../advise/infer/rates.js";
import { scenarioFromSample } from "../../advise/infer/sample-scenario.js";
import type { Scenario } from "../../sim/scenario/scenario.js";
import { printable } from "../decode/decoded-boundary.js";

export interface InferredKey {
  sample: SplitKeySample;
  structure: KeyStructure;
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
  const sample = splitKeySample(keySampleLines(keys));
  return { sample, structure: inferKeyStructure(sample) };
}

export interface DiagnosisScenarioOptions {
  rates: WorkloadRates;
  /** Where the rates come from, for the scenario's description. */
  ratesSource: "given" | "implied by the hot tablets";
  nodes: number;
  storage: "ssd" | "hdd";
  rowBytes?: number;
  table: string;
}

export function diagnosisScenario(key: InferredKey, options: DiagnosisScenarioOptions): Scenario {
  const scenario = scenarioFromSample(key.sample, key.structure, {
    rates: options.rates,
    nodes: options.nodes,
    storage: options.storage,
    ...(options.rowBytes === undefined ? {} : { rowBytes: options.rowBytes }),
    name: `diagnose-${options.table}`,
  });
  const rates =
    options.ratesSource === "given"
      ? "Rates as given."
      : "Write rate implied by the hot tablets (their CPU share of a node times a node's write capacity): a floor, since it counts only the hot ranges; pass --rates for the real figures.";
  return {
    ...scenario,
    source: `keyspread diagnose of table ${options.table}`,
    description: `${scenario.description} ${rates}`,
  };
}
