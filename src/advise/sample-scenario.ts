/**
 * Turns an inferred key structure plus rates into a simulator scenario: the sampled key as the
 * baseline design, and workload groups that reproduce where the sample's writes land — one group
 * per family of entity ids (`acme-000042`-like, hex-like, …) with its share of the writes.
 */
import type { SegmentSpec } from "../keys/types.js";
import { parseScenario, type Scenario } from "../sim/scenario.js";
import type { SplitSample } from "./key-sample.js";
import type { Component, KeyStructure } from "./key-structure.js";
import type { WorkloadRates } from "./rates.js";

export interface SampleWorkload {
  rates: WorkloadRates;
  nodes: number;
  storage?: "ssd" | "hdd";
  /** Bytes of one row (key and cells); default the simulator's 1 KB. */
  rowBytes?: number;
  /** Distinct writers in the whole table; default estimated from the sample's repeats (Chao1). */
  entities?: number;
  durationS?: number;
  name?: string;
}

interface Family {
  label: string;
  /** Template over the entity index, with `op` (e.g. `/50`) applied to the index. */
  template: (op: string) => string;
  values: string[];
}

/** Chao1 (bias-corrected): distinct values in the population, from how often sampled values repeat. */
export function estimatePopulation(values: readonly string[]): number {
  const counts = new Map<string, number>();
  for (const value of values) counts.set(value, (counts.get(value) ?? 0) + 1);
  let once = 0;
  let twice = 0;
  for (const count of counts.values()) {
    if (count === 1) once++;
    else if (count === 2) twice++;
  }
  return Math.round(counts.size + (once * (once - 1)) / (2 * (twice + 1)));
}

/** Families under this share of the sample merge into one `<other>` family (spread like hex ids). */
const MIN_FAMILY_SHARE = 0.01;
const MAX_FAMILIES = 8;

/**
 * Values grouped by shape: a stem, then a body of ≥ 4 hex or decimal digits (`acme-` + 6 digits,
 * `u` + 8 hex, 8 hex). A decimal body keeps its order (`acme-{i:06}`: the family is one contiguous
 * key range); a hex body is scrambled (`{hex8:i}`: ids that look random). Other values, and small
 * families, are modelled as random-looking ids.
 */
export function familiesOf(values: readonly string[]): Family[] {
  const groups = new Map<
    string,
    { stem: string; width: number; hex: boolean; padded: boolean; values: string[] }
  >();
  const other: string[] = [];
  for (const value of values) {
    const body = /[0-9a-fA-F]{4,}$/.exec(value)?.[0];
    if (body === undefined || /[{}]/.test(value)) {
      other.push(value);
      continue;
    }
    const stem = value.slice(0, value.length - body.length);
    const hex = /[a-fA-F]/.test(body);
    // Hex ids of one length are one family; decimal ids with one stem are one (padded or not).
    const key = `${stem}\u0000${hex ? body.length : "decimal"}`;
    const group = groups.get(key) ?? { stem, width: 0, hex, padded: false, values: [] };
    group.width = Math.max(group.width, body.length);
    group.padded ||= body.startsWith("0");
    group.values.push(value);
    groups.set(key, group);
  }
  const sorted = [...groups.values()].sort((a, b) => b.values.length - a.values.length);
  const families: Family[] = [];
  for (const [index, group] of sorted.entries()) {
    if (index >= MAX_FAMILIES || group.values.length < values.length * MIN_FAMILY_SHARE) {
      other.push(...group.values);
      continue;
    }
    const { stem, width } = group;
    families.push(
      group.hex
        ? {
            label: `${stem}<${width} hex>`,
            template: (op) => `${stem}{hex${Math.min(8, width)}:i${op}}`,
            values: group.values,
          }
        : {
            label: `${stem}<digits>`,
            template: (op) => `${stem}{i${op}${group.padded ? `:0${width}` : ""}}`,
            values: group.values,
          },
    );
  }
  if (other.length > 0) families.push({ label: "<other>", template: (op) => `{hex8:i${op}}`, values: other });
  return families.sort((a, b) => b.values.length - a.values.length);
}

/** Template of a second entity component (`{i%d}`), from its most common shape. */
function innerTemplate(values: readonly string[], cardinality: number): string {
  return familiesOf(values)[0]!.template(`%${cardinality}`);
}

export function scenarioFromSample(
  sample: SplitSample,
  structure: KeyStructure,
  workload: SampleWorkload,
): Scenario {
  const column = (component: Component) => sample.rows.map((row) => row[component.index]!);
  const moving = structure.components.find((c) => c.kind === "timestamp" || c.kind === "sequence");
  const salt = structure.components.find((component) => component.saltBuckets !== undefined);
  const isEntity = (component: Component) =>
    (component.kind === "high-cardinality" && component !== salt) ||
    (component.kind === "hashed" && component !== salt) ||
    (component.kind === "low-cardinality" && (!moving || component.index < moving.index));
  const entityComponents = structure.components.filter(isEntity);
  if (entityComponents.length > 2) {
    throw new Error(
      `key sample: ${entityComponents.length} components identify a writer (${entityComponents.map((c) => c.name).join(", ")}); the advisor models at most two from a sample — describe the workload in a scenario file instead`,
    );
  }
  const segments: SegmentSpec[] = [];
  const shared: Record<string, unknown> = {};
  for (const component of structure.components) {
    if (component === salt) continue;
    if (component.kind === "constant") {
      if (component.value !== "") segments.push({ literal: component.value! });
    } else if (component.kind === "timestamp") {
      const { unit, reverse } = component.timestamp!;
      segments.push({
        field: component.name,
        codec: { type: "timestamp", unit, ...(reverse ? { reverse } : {}) },
      });
    } else if (component.kind === "sequence") {
      segments.push({ field: component.name, codec: { type: "uint", width: component.examples[0]!.length } });
      shared[component.name] = { sequence: { start: 1 } };
    } else {
      // Raw: the sampled text as is (it never holds the separator), so encoded keys look like the real ones.
      segments.push({ field: component.name, codec: { type: "string", raw: true } });
      if (!isEntity(component)) shared[component.name] = { oneOf: [...new Set(column(component))].sort() };
    }
  }
  if (!segments.some((segment) => "field" in segment))
    throw new Error("key sample: every key is the same; there is nothing to model");

  const [outer, inner] = entityComponents;
  const innerCardinality = inner ? inner.distinct : 1;
  const families = outer ? familiesOf(column(outer)) : [];
  const estimates = families.map((family) => estimatePopulation(family.values) * innerCardinality);
  const estimated = estimates.reduce((sum, n) => sum + n, 0);
  const rows = sample.rows.length;
  const groups =
    families.length === 0
      ? [{ name: "writes", entities: 1, fields: { ...shared }, writesPerS: workload.rates.writesPerS }]
      : families.map((family, index) => {
          const entities = workload.entities
            ? Math.max(1, Math.round((workload.entities * estimates[index]!) / estimated))
            : estimates[index]!;
          const fields: Record<string, unknown> = {
            ...shared,
            [outer!.name]: family.template(inner ? `/${innerCardinality}` : ""),
          };
          if (inner) fields[inner.name] = innerTemplate(column(inner), innerCardinality);
          return {
            name: family.label,
            entities,
            fields,
            writesPerS: (workload.rates.writesPerS * family.values.length) / rows,
          };
        });
  const busiest = groups.reduce((a, b) => (b.writesPerS > a.writesPerS ? b : a));
  const reads = workload.rates.reads.map((read) =>
    read.kind === "latest"
      ? { kind: "latest", name: read.name, group: busiest.name, perS: read.perS, limit: read.limit }
      : read.kind === "scan"
        ? { kind: "scan", name: read.name, group: busiest.name, perS: read.perS, window: read.windowS }
        : {
            kind: "get",
            name: read.name,
            group: busiest.name,
            perS: read.perS,
            ...(read.windowS === undefined ? {} : { window: read.windowS }),
          },
  );
  return parseScenario({
    name: workload.name ?? "key-sample",
    description: `Inferred from ${rows} sampled keys: ${structure.explanation}`,
    source: "key sample",
    duration: workload.durationS ?? 3600,
    cluster: { nodes: workload.nodes, storage: workload.storage ?? "ssd" },
    workload: { ...(workload.rowBytes ? { rowBytes: workload.rowBytes } : {}), groups, reads },
    designs: [
      {
        name: "as-is",
        description: "the sampled key",
        schema: {
          version: 1,
          name: "sampled-key",
          layout: "text",
          separator: structure.separator ?? "#",
          segments,
          // The key's own salt, re-modelled with keyspread's hash over the fields before the time.
          ...(salt ? { salt: { buckets: salt.saltBuckets!, width: salt.examples[0]!.length } } : {}),
        },
      },
    ],
  });
}
