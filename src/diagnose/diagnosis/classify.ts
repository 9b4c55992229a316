/**
 * What the evidence says is wrong, and what to do: one hot row, one hot entity (a device's rows
 * under a time in the key), a narrow hot range of few entities, a wide hot range of many, a moving
 * tail, or an even load near capacity. Narrow or wide counts the entities a range holds (the key's
 * fields before its time, decode/entities.ts), never its row keys: with a time in the key every
 * row is a distinct key while the writer stays one. Each diagnosis carries the facts it rests on. Pure.
 */
import { printable } from "../decode/decoded-boundary.js";
import type { DecodedHotRange } from "../decode/decoded-hot-range.js";
import { type EntityFields, entityOf } from "../decode/entities.js";

export type DiagnosisKind =
  | "no-hot-tablets"
  | "one-hot-row"
  | "one-hot-entity"
  | "narrow-hot-range"
  | "wide-hot-range"
  | "moving-tail"
  | "even-near-capacity";

export type Remedy =
  /** No split can help: spread the row's writes over a few physical rows and merge on read. */
  | "shard-the-row"
  /**
   * One entity's rows (its newest next to each other) take the heat: no split or node spreads one
   * writer's head. Spread that entity's writes: write shards over it, or promote a field that
   * varies within it (a metric, a time bucket) ahead of the time.
   */
  | "spread-the-entity"
  /** A split isolates the few entities at best: spread them (salt on their field, or shard them). */
  | "spread-the-few-keys"
  /** Splits and the balancer spread it once warm: capacity, not the key. */
  | "capacity-not-the-key"
  /** Put a spreading field (a salt, the entity) before the time or sequence that leads the key. */
  | "lead-with-a-spreading-field"
  | "add-nodes"
  | "nothing-to-do";

export type Fact =
  | { kind: "no-hot-tablets" }
  /** The key in hex, and as text when printable. */
  | { kind: "single-key"; key: string; text?: string }
  | { kind: "sampled-keys-in-range"; count: number }
  /** Entities in the hottest range (the key's fields before its time). */
  | { kind: "entities-in-range"; count: number; fields: string[]; narrowAtMost: number }
  | { kind: "sequential-key"; field: string }
  | { kind: "reaches-table-end" }
  | { kind: "moves-forward"; ranges: number }
  | { kind: "hot-ranges"; count: number; maxOverMedianCpu: number }
  /** Share of the distinct sampled keys that lie in a hot range (undefined without a sample). */
  | { kind: "hot-share-of-sample"; share: number }
  | { kind: "cpu"; percent: number; recurrences: number };

export interface Diagnosis {
  kind: DiagnosisKind;
  remedy: Remedy;
  /** The facts the diagnosis rests on. */
  facts: Fact[];
}

export interface ClassifyInput {
  /** Hottest first. */
  hotRanges: readonly DecodedHotRange[];
  /** Distinct keys in the row sample. */
  sampleKeys: number;
  /** The field the key-structure inference found moving with every write at the front of the key. */
  sequentialField: string | undefined;
  /** The schema's fields that name an entity, and whether they lead the key (decode/entities.ts). */
  entity: EntityFields;
}

/**
 * Assumption (no published figure): a hot range holding at most this many entities is "few".
 * Plausible range 5–20: below it, splitting can give each entity a tablet, but no more.
 */
export const NARROW_MAX_ENTITIES = 10;
/**
 * Assumption: at least this many hot ranges whose hottest CPU is within this factor of the median
 * is load spread over the key space, not a hotspot (plausible 1.25–2).
 */
export const EVEN_MIN_RANGES = 3;
export const EVEN_MAX_OVER_MEDIAN = 1.5;
/**
 * Assumption: an even load covers most of the table — at least this share of the sampled keys lies
 * in hot ranges (plausible 0.6–0.9). A band of similar hot tablets over less is one wide hot range.
 */
export const EVEN_MIN_SAMPLE_SHARE = 0.8;

/** Every hot range holds one entity, and the same one (read from their decoded start keys). */
function oneEntityThroughout(ranges: readonly DecodedHotRange[], fields: readonly string[]): boolean {
  const ids = new Set<string>();
  for (const range of ranges) {
    if (range.entities !== 1 || range.start.kind !== "decoded") return false;
    ids.add(entityOf(range.start.values, fields));
  }
  return ids.size === 1;
}

function keyText(key: Buffer): { key: string; text?: string } {
  const text = printable(key);
  return { key: key.toString("hex"), ...(text === undefined ? {} : { text }) };
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/** Hot ranges taken in the order they were first hot, whose start keys never go back (≥ 2 distinct). */
function movesForward(ranges: readonly DecodedHotRange[]): number {
  const byTime = [...ranges].sort((a, b) => a.windows[0]!.start.getTime() - b.windows[0]!.start.getTime());
  for (let k = 1; k < byTime.length; k++)
    if (Buffer.compare(byTime[k]!.startKey, byTime[k - 1]!.startKey) <= 0) return 0;
  return byTime.length >= 2 ? byTime.length : 0;
}

export function classify(input: ClassifyInput): Diagnosis {
  const [hottest] = input.hotRanges;
  if (!hottest)
    return { kind: "no-hot-tablets", remedy: "nothing-to-do", facts: [{ kind: "no-hot-tablets" }] };
  const cpu: Fact = { kind: "cpu", percent: hottest.maxCpuPercent, recurrences: hottest.windows.length };
  if (hottest.singleKey)
    return {
      kind: "one-hot-row",
      remedy: "shard-the-row",
      facts: [{ kind: "single-key", ...keyText(hottest.startKey) }, cpu],
    };
  const entityFacts: Fact[] = [
    {
      kind: "entities-in-range",
      count: hottest.entities,
      fields: [...input.entity.fields],
      narrowAtMost: NARROW_MAX_ENTITIES,
    },
    { kind: "sampled-keys-in-range", count: hottest.sampledKeys },
  ];
  // One writer's own tail (its time ascending within its rows) moves forward too, but inside one
  // entity: a key that leads with a spreading field, whose one entity is too hot.
  if (input.entity.leading && oneEntityThroughout(input.hotRanges, input.entity.fields))
    return { kind: "one-hot-entity", remedy: "spread-the-entity", facts: [...entityFacts, cpu] };
  const forward = movesForward(input.hotRanges);
  const atEnd = hottest.endKey.length === 0;
  if (forward > 0 || (input.sequentialField !== undefined && atEnd))
    return {
      kind: "moving-tail",
      remedy: "lead-with-a-spreading-field",
      facts: [
        ...(input.sequentialField === undefined
          ? []
          : [{ kind: "sequential-key" as const, field: input.sequentialField }]),
        ...(atEnd ? [{ kind: "reaches-table-end" as const }] : []),
        ...(forward > 0 ? [{ kind: "moves-forward" as const, ranges: forward }] : []),
        cpu,
      ],
    };
  const cpus = input.hotRanges.map((range) => range.maxCpuPercent);
  const maxOverMedianCpu = hottest.maxCpuPercent / median(cpus);
  const spread: Fact = { kind: "hot-ranges", count: input.hotRanges.length, maxOverMedianCpu };
  const hotShare =
    input.sampleKeys === 0
      ? undefined
      : input.hotRanges.reduce((sum, range) => sum + range.sampledKeys, 0) / input.sampleKeys;
  const coverage: Fact[] = hotShare === undefined ? [] : [{ kind: "hot-share-of-sample", share: hotShare }];
  if (
    input.hotRanges.length >= EVEN_MIN_RANGES &&
    maxOverMedianCpu <= EVEN_MAX_OVER_MEDIAN &&
    (hotShare === undefined || hotShare >= EVEN_MIN_SAMPLE_SHARE)
  )
    return { kind: "even-near-capacity", remedy: "add-nodes", facts: [spread, ...coverage, cpu] };
  const facts = [...entityFacts, spread, ...coverage, cpu];
  if (hottest.entities === 1) return { kind: "one-hot-entity", remedy: "spread-the-entity", facts };
  return hottest.entities <= NARROW_MAX_ENTITIES
    ? { kind: "narrow-hot-range", remedy: "spread-the-few-keys", facts }
    : { kind: "wide-hot-range", remedy: "capacity-not-the-key", facts };
}
