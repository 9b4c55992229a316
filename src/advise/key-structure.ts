/**
 * Infers a key's structure from a sample: what each component is (constant, low or high
 * cardinality, a timestamp, a sequence id, an already hashed value) and which component makes
 * writes sequential. Pure.
 */
import type { TimeUnit } from "../keys/types.js";
import type { SplitSample } from "./key-sample.js";

export type ComponentKind =
  | "constant"
  | "timestamp"
  | "sequence"
  | "hashed"
  | "low-cardinality"
  | "high-cardinality";

export interface TimestampShape {
  unit: TimeUnit;
  /** Stored so the newest sorts first (9-complement, or Java's Long.MAX_VALUE − t). */
  reverse: boolean;
  /** `epoch`: digits of a Unix time; `date`: YYYYMMDD[HHMM[SS]] digits. */
  shape: "epoch" | "date";
}

export interface Component {
  index: number;
  /** A field name for the schema (from a constant word before it when there is one). */
  name: string;
  kind: ComponentKind;
  distinct: number;
  /** Share of consecutive sample keys in which the value grew (1 = strictly ascending in sample order). */
  ascending: number;
  examples: string[];
  /** The value, for a constant. */
  value?: string;
  /** For a leading `hashed` component that is a bucket number: the salt's bucket count. */
  saltBuckets?: number;
  timestamp?: TimestampShape;
}

export interface KeyStructure {
  separator: string | undefined;
  sampleSize: number;
  skipped: number;
  components: Component[];
  /** The component that makes writes sequential: a timestamp or sequence no high-cardinality component precedes. */
  sequential: Component | undefined;
  /** In words: why writes are (or are not) sequential. */
  explanation: string;
}

const YEAR_2000_S = 946_684_800;
const YEAR_2100_S = 4_102_444_800;
const EPOCH_UNITS: readonly { digits: number; unit: TimeUnit; scale: bigint }[] = [
  { digits: 10, unit: "s", scale: 1n },
  { digits: 13, unit: "ms", scale: 1000n },
  { digits: 16, unit: "us", scale: 1_000_000n },
];
const JAVA_LONG_MAX = 9_223_372_036_854_775_807n;
/** A sequence id or timestamp grows in at least this share of consecutive sample keys. */
const ASCENDING = 0.9;

const inEpochRange = (value: bigint, scale: bigint) =>
  value >= BigInt(YEAR_2000_S) * scale && value <= BigInt(YEAR_2100_S) * scale;

function validDate(digits: string): boolean {
  const year = Number(digits.slice(0, 4));
  const month = Number(digits.slice(4, 6));
  const day = Number(digits.slice(6, 8));
  const hour = digits.length >= 12 ? Number(digits.slice(8, 10)) : 0;
  const minute = digits.length >= 12 ? Number(digits.slice(10, 12)) : 0;
  const second = digits.length === 14 ? Number(digits.slice(12, 14)) : 0;
  return (
    year >= 1990 &&
    year <= 2100 &&
    month >= 1 &&
    month <= 12 &&
    day >= 1 &&
    day <= 31 &&
    hour < 24 &&
    minute < 60 &&
    second < 60
  );
}

/** How a column of same-length digit strings reads as a time, if it does. */
export function timestampShape(values: readonly string[]): TimestampShape | undefined {
  if (values.length === 0 || !values.every((value) => /^\d+$/.test(value))) return undefined;
  const length = values[0]!.length;
  if (!values.every((value) => value.length === length)) return undefined;
  const numbers = values.map((value) => BigInt(value));
  for (const { digits, unit, scale } of EPOCH_UNITS) {
    if (length !== digits) continue;
    if (numbers.every((n) => inEpochRange(n, scale))) return { unit, reverse: false, shape: "epoch" };
    const complement = 10n ** BigInt(digits) - 1n;
    if (numbers.every((n) => inEpochRange(complement - n, scale)))
      return { unit, reverse: true, shape: "epoch" };
  }
  if (length === 19 && numbers.every((n) => inEpochRange(JAVA_LONG_MAX - n, 1000n)))
    return { unit: "ms", reverse: true, shape: "epoch" };
  if ((length === 8 || length === 12 || length === 14) && values.every(validDate))
    return { unit: "s", reverse: false, shape: "date" };
  return undefined;
}

function ascendingShare(values: readonly string[]): number {
  if (values.length < 2) return 0;
  let up = 0;
  for (let k = 1; k < values.length; k++) {
    const a = values[k - 1]!;
    const b = values[k]!;
    if (a.length === b.length ? a < b : a.length < b.length) up++;
  }
  return up / (values.length - 1);
}

/** Hex digits of one length, spread evenly over the 16 symbols: the output of a hash. */
export function looksHashed(values: readonly string[]): boolean {
  if (values.length < 8) return false;
  const length = values[0]!.length;
  const sameCaseHex =
    values.every((value) => /^[0-9a-f]+$/.test(value)) || values.every((value) => /^[0-9A-F]+$/.test(value));
  if (length < 6 || !sameCaseHex || !values.every((value) => value.length === length)) return false;
  if (!values.some((value) => /[a-fA-F]/.test(value))) return false;
  const counts = new Map<string, number>();
  for (const value of values)
    for (const char of value.toLowerCase()) counts.set(char, (counts.get(char) ?? 0) + 1);
  const expected = (values.length * length) / 16;
  return (
    counts.size === 16 && [...counts.values()].every((count) => count > expected / 2 && count < expected * 2)
  );
}

/**
 * A leading bucket number — zero-padded digits covering (nearly) all of 0..N−1 about evenly, such
 * as seed 000's `061_player_…` — is a salt already in the key: its N, else undefined.
 */
export function saltPrefixBuckets(values: readonly string[]): number | undefined {
  const width = values[0]!.length;
  if (width > 5 || !values.every((value) => value.length === width && /^\d+$/.test(value))) return undefined;
  const counts = new Map<number, number>();
  for (const value of values) counts.set(Number(value), (counts.get(Number(value)) ?? 0) + 1);
  const buckets = Math.max(...counts.keys()) + 1;
  // Coverage only shows with a few keys per bucket.
  if (buckets < 2 || values.length < 4 * buckets || counts.size < 0.9 * buckets) return undefined;
  const mean = values.length / buckets;
  return [...counts.values()].every((count) => count < 3 * mean) ? buckets : undefined;
}

/** Low cardinality: few enough values that they repeat across the sample (≤ 256, ≤ a tenth of the keys). */
export function isLowCardinality(distinct: number, sampleSize: number): boolean {
  return distinct <= Math.max(2, Math.min(256, sampleSize / 10));
}

function classify(values: readonly string[], index: number): Omit<Component, "index" | "name"> {
  const distinct = new Set(values).size;
  const ascending = ascendingShare(values);
  const examples = [...new Set(values)].slice(0, 3);
  const base = { distinct, ascending, examples };
  if (distinct === 1) return { ...base, kind: "constant", value: values[0]! };
  const timestamp = timestampShape(values);
  if (timestamp) return { ...base, kind: "timestamp", timestamp };
  if (looksHashed(values)) return { ...base, kind: "hashed" };
  const saltBuckets = index === 0 ? saltPrefixBuckets(values) : undefined;
  if (saltBuckets !== undefined) return { ...base, kind: "hashed", saltBuckets };
  if (
    values.every((value) => /^\d+$/.test(value)) &&
    ascending >= ASCENDING &&
    !isLowCardinality(distinct, values.length)
  )
    return { ...base, kind: "sequence" };
  return {
    ...base,
    kind: isLowCardinality(distinct, values.length) ? "low-cardinality" : "high-cardinality",
  };
}

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Field names: `ts`, `seq`, `hash`, or the constant word before the component, else `id`, `id2`, …, `part`. */
function nameComponents(components: Omit<Component, "name">[]): Component[] {
  const used = new Set<string>(["bucket"]);
  const unique = (base: string) => {
    let name = base;
    for (let n = 2; used.has(name); n++) name = `${base}${n}`;
    used.add(name);
    return name;
  };
  return components.map((component, index) => {
    if (component.kind === "constant") return { ...component, name: "" };
    const previous = components[index - 1];
    const word =
      previous?.kind === "constant" ? previous.value!.replace(/[^A-Za-z0-9_]/g, "").toLowerCase() : "";
    const base =
      component.kind === "timestamp"
        ? "ts"
        : component.kind === "sequence"
          ? "seq"
          : IDENTIFIER.test(word)
            ? word
            : component.kind === "low-cardinality"
              ? "part"
              : component.kind === "hashed"
                ? component.saltBuckets
                  ? "salt"
                  : "hash"
                : "id";
    return { ...component, name: unique(base) };
  });
}

export function inferKeyStructure(sample: SplitSample): KeyStructure {
  const width = sample.rows[0]?.length ?? 0;
  const columns = Array.from({ length: width }, (_, column) => sample.rows.map((row) => row[column]!));
  const components = nameComponents(columns.map((values, index) => ({ index, ...classify(values, index) })));
  const spreading = (component: Component) =>
    component.kind === "high-cardinality" || component.kind === "hashed";
  const firstMoving = components.find(
    (component) => component.kind === "timestamp" || component.kind === "sequence",
  );
  const leads = firstMoving && !components.slice(0, firstMoving.index).some(spreading);
  const explanation = !firstMoving
    ? "No component moves with time: writes land wherever their values sort."
    : leads
      ? `Writes are sequential: ${firstMoving.name} (${firstMoving.kind}) leads the key${firstMoving.index > 0 ? " after constant or low-cardinality components" : ""}, so every new row sorts next to the last one and one tablet takes the writes.`
      : `Writes spread over the values of ${components
          .slice(0, firstMoving.index)
          .filter(spreading)
          .map((component) => component.name)
          .join(", ")}; ${firstMoving.name} only orders rows within each of them.`;
  return {
    separator: sample.separator,
    sampleSize: sample.rows.length,
    skipped: sample.skipped,
    components,
    sequential: leads ? firstMoving : undefined,
    explanation,
  };
}
