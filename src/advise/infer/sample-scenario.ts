/**
 * Turns an inferred key structure plus rates into a simulator scenario: the sampled key as the
 * baseline design, and workload groups that reproduce where the sample's writes land — one group
 * per family of writers (a tenant, `acme-000042`-like ids, random-looking ids, …) with its share of
 * the writes. Times and time-ordered ids become the simulator's time, counters its sequences.
 */
import type { SaltSpec, SegmentSpec } from "../../keys/types.js";
import { formatDuration } from "../../sim/scenario/duration.js";
import { DEFAULT_GET_WINDOW_S, type Scenario, validateScenario } from "../../sim/scenario/scenario.js";
import { KeySampleError } from "./advise-errors.js";
import type { SplitKeySample } from "./key-sample.js";
import { type KeyComponent, type KeyStructure, MOVING_KINDS, type SequenceShape } from "./key-structure.js";
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
  /** The simulator's step (default its 1 s): coarser steps simulate faster, at the cost of detail in splits. */
  stepS?: number;
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

/** Families under this share of the sample merge into one family of other ids (spread like hex ids). */
const MIN_FAMILY_SHARE = 0.01;
const MAX_FAMILIES = 8;
/** The model's time runs this many times the stated write rate at most (a growth run multiplies it; growth up to 2.5× fits). */
const RATE_ROOM = 2.5;
const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

const randomIds = (values: string[]): Family => ({
  label: "other ids",
  template: (op) => `{hex8:i${op}}`,
  values,
});

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
            label: stem ? `${stem}… ids (hex)` : `${width}-hex-digit ids`,
            template: (op) => `${stem}{hex${Math.min(8, width)}:i${op}}`,
            values: group.values,
          }
        : {
            label: stem ? `${stem}… ids` : "numeric ids",
            template: (op) => `${stem}{i${op}${group.padded ? `:0${width}` : ""}}`,
            values: group.values,
          },
    );
  }
  if (other.length > 0) families.push(randomIds(other));
  return families.sort((a, b) => b.values.length - a.values.length);
}

/** Each frequent value of a low-cardinality writer component (a tenant) is a family of its own. */
function valueFamilies(name: string, values: readonly string[]): Family[] {
  const counts = new Map<string, string[]>();
  for (const value of values) counts.set(value, [...(counts.get(value) ?? []), value]);
  const sorted = [...counts.entries()].sort((a, b) => b[1].length - a[1].length);
  const families: Family[] = [];
  const other: string[] = [];
  for (const [index, [value, rows]] of sorted.entries()) {
    if (index >= MAX_FAMILIES || rows.length < values.length * MIN_FAMILY_SHARE || /[{}]/.test(value))
      other.push(...rows);
    else families.push({ label: `${name} ${value}`, template: () => value, values: rows });
  }
  if (other.length > 0)
    families.push({ ...familiesOf(other)[0]!, label: `other ${name} values`, values: other });
  return families;
}

/** Template of a writer component after the first (`{i%d}`), from its most common shape. */
function innerTemplate(values: readonly string[], cardinality: number): string {
  return familiesOf(values)[0]!.template(`%${cardinality}`);
}

/** The components that identify a writer: ids, hashes, and low-cardinality parts before the moving one. */
export function writerComponents(structure: KeyStructure): KeyComponent[] {
  const moving = structure.components.find((component) => MOVING_KINDS.has(component.kind));
  return structure.components.filter(
    (component) =>
      component.kind === "high-cardinality" ||
      component.kind === "hashed" ||
      (component.kind === "low-cardinality" && (!moving || component.index < moving.index)),
  );
}

/** Digits the model's sequence needs to run the simulated time at the headroom rate without overflowing. */
function sequenceModel(sequence: SequenceShape, workload: SampleWorkload) {
  const { width, max } = sequence;
  const start = max < MAX_SAFE / 2n ? Number(max) + 1 : 1;
  const last = start + RATE_ROOM * workload.rates.writesPerS * (workload.durationS ?? 3600);
  const sampleWidth = width ?? String(max).length;
  return { start, width: Math.max(sampleWidth, String(Math.ceil(last)).length), sampleWidth };
}

/** The schema segment and (for non-time fields) the workload generator that model a component. */
function modelOf(
  component: KeyComponent,
  column: string[],
  role: { writer: boolean; afterWriter: boolean },
  workload: SampleWorkload,
): { segment?: SegmentSpec; generator?: unknown } {
  const field = component.name;
  switch (component.kind) {
    case "time-bucket":
      // After the writer it only orders one writer's rows (a time, so time windows are key ranges);
      // before it, it is constant for a day or an hour while writes spread over what follows.
      return role.afterWriter
        ? { segment: { field, codec: { type: "timestamp", unit: "s" } } }
        : {
            segment: { field, codec: { type: "string", raw: true } },
            generator: { oneOf: [...new Set(column)].sort() },
          };
    case "constant":
      return component.value === "" ? {} : { segment: { literal: component.value } };
    case "salt":
      return {};
    case "timestamp": {
      const { unit, reverse } = component.time;
      return { segment: { field, codec: { type: "timestamp", unit, ...(reverse ? { reverse } : {}) } } };
    }
    case "time-ordered-id":
      return {
        segment: {
          field,
          codec: { type: "timestamp", unit: component.id.format === "uuid-v1" ? "us" : "ms" },
        },
      };
    case "sequence": {
      const { start, width } = sequenceModel(component.sequence, workload);
      return { segment: { field, codec: { type: "uint", width } }, generator: { sequence: { start } } };
    }
    default:
      // Raw: the sampled text as is (it never holds the separator), so encoded keys look like the real ones.
      return {
        segment: { field, codec: { type: "string", raw: true } },
        ...(role.writer ? {} : { generator: { oneOf: [...new Set(column)].sort() } }),
      };
  }
}

/** Writers seen more than once that must keep their bucket before the salt is taken to be over the writer. */
const SALT_EVIDENCE = 3;
/** Below this many keys the report warns that the inference may be wrong (an assumption: 400 keys recognise 256 buckets). */
const SMALL_SAMPLE_KEYS = 100;

/** A sample too small to trust the inference: its keys, and the fewest the advisor trusts. */
export interface SmallSample {
  keys: number;
  trustedFrom: number;
}

export function smallSample(keys: number): SmallSample | undefined {
  return keys < SMALL_SAMPLE_KEYS ? { keys, trustedFrom: SMALL_SAMPLE_KEYS } : undefined;
}

export function smallSampleNote({ keys }: SmallSample): string {
  return `${keys} keys are few to tell a sequence from random values or to count a field's values: the inference may be wrong (give a few hundred).`;
}

/**
 * The salt already in the key: over each writer's fields when writers seen more than once keep
 * their bucket, else over the whole key (as Phoenix, HBaseWD and the game-studio recipe hash it).
 */
function keptSalt(
  structure: KeyStructure,
  sample: SplitKeySample,
  segments: readonly SegmentSpec[],
  writers: readonly KeyComponent[],
): SaltSpec | undefined {
  const salt = structure.components.find(
    (component): component is Extract<KeyComponent, { kind: "salt" }> => component.kind === "salt",
  );
  if (!salt) return undefined;
  const fields = segments.flatMap((segment) => ("field" in segment ? [segment.field] : []));
  const moving = structure.components.find((component) => MOVING_KINDS.has(component.kind));
  const leading = writers.filter((writer) => !moving || writer.index < moving.index);
  const bucketOf = new Map<string, string>();
  let kept = 0;
  let moved = false;
  for (const row of sample.rows) {
    const writer = leading.map((component) => row[component.index]).join("\u0000");
    const bucket = row[salt.index]!;
    const seen = bucketOf.get(writer);
    if (seen !== undefined && seen !== bucket) moved = true;
    else if (seen !== undefined) kept++;
    bucketOf.set(writer, bucket);
  }
  const last = leading.at(-1);
  const perWriter = last !== undefined && !moved && kept >= SALT_EVIDENCE;
  const through = perWriter ? fields.indexOf(last.name) + 1 : fields.length;
  return {
    buckets: salt.salt.buckets,
    fields: fields.slice(0, through),
    ...(structure.binary || salt.salt.format !== "decimal" ? {} : { width: salt.salt.width }),
  };
}

/**
 * A sampled counter the model gives more digits than the sample shows: the key `field`, its
 * `sampleDigits` and `modelDigits`, and `passesAfterS`, the seconds at the stated write rate until
 * it outgrows the sample's digits.
 */
export interface SequenceOverflow {
  field: string;
  sampleDigits: number;
  modelDigits: number;
  passesAfterS: number;
}

/** The sampled counters that outgrow their digits in the simulated time (snowflake ids do not). */
export function sequenceOverflows(structure: KeyStructure, workload: SampleWorkload): SequenceOverflow[] {
  return structure.components.flatMap((component) => {
    if (component.kind !== "sequence" || component.sequence.snowflake) return [];
    const { start, width, sampleWidth } = sequenceModel(component.sequence, workload);
    if (width === sampleWidth) return [];
    const passesAfterS = (10 ** sampleWidth - start) / workload.rates.writesPerS;
    return [{ field: component.name, sampleDigits: sampleWidth, modelDigits: width, passesAfterS }];
  });
}

/** What the model changes about the sampled key, in words (a counter that outgrows its digits). */
function modelNotes(structure: KeyStructure, workload: SampleWorkload): string[] {
  const rate = workload.rates.writesPerS.toLocaleString("en-US");
  return sequenceOverflows(structure, workload).map(
    ({ field, sampleDigits, modelDigits, passesAfterS: seconds }) =>
      `${field} has ${sampleDigits} digits in the sample; at ${rate} writes/s it passes ${"9".repeat(sampleDigits)} ${seconds < 1 ? "within a second" : `in ${formatDuration(Math.max(1, Math.round(seconds)))}`}, and from then on keys are a digit longer (modelled as ${modelDigits} digits: each new id still lands next to the last one).`,
  );
}

/** The most entities a sampled group gets: what an 8-hex-digit id template can tell apart. */
const MAX_ENTITIES = 2 ** 32 - 1;

export function scenarioFromSample(
  sample: SplitKeySample,
  structure: KeyStructure,
  workload: SampleWorkload,
): Scenario {
  const column = (component: KeyComponent) => sample.rows.map((row) => row[component.index]!);
  const writers = writerComponents(structure);
  const segments: SegmentSpec[] = [];
  const shared: Record<string, unknown> = {};
  for (const component of structure.components) {
    const { segment, generator } = modelOf(
      component,
      column(component),
      {
        writer: writers.includes(component),
        afterWriter: writers.length > 0 && writers[0]!.index < component.index,
      },
      workload,
    );
    if (segment) segments.push(segment);
    if (generator !== undefined) shared[component.name] = generator;
  }
  if (!segments.some((segment) => "field" in segment))
    throw new KeySampleError("identical", "key sample: every key is the same; there is nothing to model");

  // The longest window a read looks back: the table keeps at least that much.
  const keptS = Math.max(
    0,
    ...workload.rates.reads.map((read) =>
      read.kind === "scan" ? read.windowS : read.kind === "get" ? (read.windowS ?? DEFAULT_GET_WINDOW_S) : 0,
    ),
  );
  const [outer, ...inner] = writers;
  const families = !outer
    ? []
    : outer.kind === "low-cardinality"
      ? valueFamilies(outer.name, column(outer))
      : familiesOf(column(outer));
  // A family's rows: those whose outer writer component holds one of its values.
  const rowsOf = (family: Family, writer: KeyComponent) => {
    const members = new Set(family.values);
    return sample.rows.filter((row) => members.has(row[writer.index]!));
  };
  const writerKey = (row: string[]) => writers.map((component) => row[component.index]).join("\u0000");
  const estimates = outer
    ? families.map((family) => estimatePopulation(rowsOf(family, outer).map(writerKey)))
    : [];
  const estimated = estimates.reduce((sum, n) => sum + n, 0);
  const rows = sample.rows.length;
  const groups =
    !outer || families.length === 0
      ? [{ name: "writes", entities: 1, fields: { ...shared }, writesPerS: workload.rates.writesPerS }]
      : families.map((family, index) => {
          const familyRows = rowsOf(family, outer);
          // A family whose every sampled writer is new shows no writer repeating: it writes no more per
          // writer than the sample as a whole (else a few look-alike random ids become a few hot rows),
          // and a writer writes about once over the window its reads keep (a random id is a row per write).
          const neverRepeats = new Set(familyRows.map(writerKey)).size === familyRows.length;
          const familyWritesPerS = (workload.rates.writesPerS * family.values.length) / rows;
          const stated = workload.entities
            ? Math.max(1, Math.round((workload.entities * estimates[index]!) / estimated))
            : estimates[index]!;
          const entities = neverRepeats
            ? Math.min(
                MAX_ENTITIES,
                Math.max(
                  stated,
                  workload.entities ? Math.round((workload.entities * familyRows.length) / rows) : 1,
                  Math.round(familyWritesPerS * keptS),
                ),
              )
            : stated;
          const outerValues = estimatePopulation(familyRows.map((row) => row[outer.index]!));
          const perOuter = Math.max(1, Math.round(entities / outerValues));
          const fields: Record<string, unknown> = {
            ...shared,
            [outer.name]: family.template(inner.length > 0 && perOuter > 1 ? `/${perOuter}` : ""),
          };
          // The second writer component takes the index's remainder (so the pair is unique); later ones their own values.
          inner.forEach((component, position) => {
            const values = familyRows.map((row) => row[component.index]!);
            const distinct = new Set(values).size;
            fields[component.name] = innerTemplate(
              values,
              position === 0 ? Math.max(perOuter, distinct) : distinct,
            );
          });
          return {
            name: family.label,
            entities,
            fields,
            writesPerS: familyWritesPerS,
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
  const salt = keptSalt(structure, sample, segments, writers);
  return validateScenario({
    name: workload.name ?? "key-sample",
    description: [
      `Inferred from ${rows} sampled keys: ${structure.explanation}`,
      ...[smallSample(rows)].flatMap((small) => (small ? [smallSampleNote(small)] : [])),
      ...modelNotes(structure, workload),
    ].join(" "),
    source: "key sample",
    duration: workload.durationS ?? 3600,
    ...(workload.stepS === undefined ? {} : { step: workload.stepS }),
    cluster: { nodes: workload.nodes, storage: workload.storage ?? "ssd" },
    workload: { ...(workload.rowBytes ? { rowBytes: workload.rowBytes } : {}), groups, reads },
    designs: [
      {
        name: "as-is",
        description: "the sampled key",
        schema: {
          version: 1,
          name: "sampled-key",
          layout: structure.binary ? "binary" : "text",
          ...(structure.binary ? {} : { separator: structure.separator ?? "#" }),
          segments,
          // The key's own salt, re-modelled with keyspread's hash over the same fields.
          ...(salt ? { salt } : {}),
        },
      },
    ],
  });
}
