/**
 * Infers a key's structure from a sample: what each component is (a constant, a salt already in
 * the key, a time, a sequence or time-ordered id, a hash or random id, a value of low or high
 * cardinality) and which component makes writes sequential. Pure.
 */
import { type IdShape, idShape } from "./id-formats.js";
import type { SplitKeySample } from "./key-sample.js";
import { type SaltPrefixShape, saltPrefixShape } from "./salt-prefix.js";
import { binaryTimeShape, type TimeShape, timeOfDayShape, timeShape } from "./time-shapes.js";

export type KeyComponentKind =
  | "constant"
  /** A bucket number already in front of the key. */
  | "salt"
  /** A time finer than an hour: moves with every write. */
  | "timestamp"
  /** A date or hour: constant within it, so writes spread over what follows until it turns. */
  | "time-bucket"
  /** A counter or a time-ordered decimal id (Snowflake-style): moves with every write. */
  | "sequence"
  /** ULID, UUID v1/v6/v7: ids whose text sorts by creation time. */
  | "time-ordered-id"
  /** A hash or a random id (hex, UUID v4): spreads writes. */
  | "hashed"
  | "low-cardinality"
  | "high-cardinality";

/** Kinds whose value moves with time, so the key's writes land next to the last ones. */
export const MOVING_KINDS: ReadonlySet<KeyComponentKind> = new Set([
  "timestamp",
  "sequence",
  "time-ordered-id",
]);
/** Kinds whose values spread writes over the key space. */
const SPREADING_KINDS: ReadonlySet<KeyComponentKind> = new Set(["salt", "hashed", "high-cardinality"]);

export interface SequenceShape {
  /** Digits when every value has the same number of them (zero-padded); undefined when they vary. */
  width: number | undefined;
  /** The sample's largest value. */
  max: bigint;
  snowflake: boolean;
}

/** What the sample showed of a component, whatever its kind. */
interface ComponentMeasures {
  /** What the component is, in words (`epoch ms, reversed`, `ULID`, `4 salt buckets (hex)`). */
  label: string;
  distinct: number;
  /** Share of consecutive sample keys in which the value grew (1 = strictly ascending in sample order). */
  ascending: number;
  examples: string[];
  /** Written right after the component before it, with no separator (the digits of `txn00001`). */
  glued?: boolean;
}

/** Each kind with the shape that recognised it. */
type ClassifiedKind =
  | { kind: "constant"; value: string }
  | { kind: "salt"; salt: SaltPrefixShape }
  | { kind: "timestamp"; time: TimeShape }
  | { kind: "time-bucket"; time: TimeShape }
  | { kind: "sequence"; sequence: SequenceShape }
  | { kind: "time-ordered-id"; id: IdShape }
  /** A random id format (UUID v4) has its shape; a hex hash has none. */
  | { kind: "hashed"; id?: IdShape }
  | { kind: "low-cardinality" | "high-cardinality" };

type Classified = ComponentMeasures & ClassifiedKind;
type Positioned = Classified & { index: number };

export type KeyComponent = Positioned & {
  /** A field name for the schema (from a constant word before it when there is one). */
  name: string;
};

export interface KeyStructure {
  separator: string | undefined;
  binary: boolean;
  sampleSize: number;
  skipped: number;
  components: KeyComponent[];
  /** The component that makes writes sequential: a moving one no spreading component precedes. */
  sequential: KeyComponent | undefined;
  /** Names of the spreading components before the moving one: what spreads the writes it would otherwise make sequential. */
  spreadBy: string[];
  /** In words: why writes are (or are not) sequential. */
  explanation: string;
}

/** A sequence id or timestamp grows in at least this share of consecutive sample keys. */
const ASCENDING = 0.9;
/** A sequence: nearly every sampled key has its own value (one per write). */
const DISTINCT_PER_WRITE = 0.98;
/** …and the values sit in a narrow band of the width's range (new ids are near the last ones), or ascend. */
const NARROW_BAND = 0.02;
/** Times that turn at most hourly are buckets: within one, writes spread over what follows. */
const BUCKET_GRANULARITY_S = 3600;

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

/** Low cardinality: few enough values that they repeat across the sample (≤ 256, ≤ a tenth of the keys). */
export function isLowCardinality(distinct: number, sampleSize: number): boolean {
  return distinct <= Math.max(2, Math.min(256, sampleSize / 10));
}

/**
 * Decimal ids that are new with (nearly) every write and either ascend in sample order or sit in a
 * narrow band of their width's range (a counter or a Snowflake id near "now", even in a shuffled sample).
 */
export function sequenceShape(
  values: readonly string[],
  distinct: number,
  ascending: number,
): SequenceShape | undefined {
  if (values.length < 8 || !values.every((value) => /^\d+$/.test(value))) return undefined;
  if (distinct < DISTINCT_PER_WRITE * values.length) return undefined;
  const numbers = values.map((value) => BigInt(value));
  let [min, max] = [numbers[0]!, numbers[0]!];
  for (const n of numbers) {
    if (n < min) min = n;
    if (n > max) max = n;
  }
  const length = values[0]!.length;
  const fixed = values.every((value) => value.length === length);
  const space = 10n ** BigInt(String(max).length);
  const narrow = Number(max - min) / Number(space) <= NARROW_BAND;
  if (ascending < ASCENDING && !narrow) return undefined;
  return { width: fixed ? length : undefined, max, snowflake: String(max).length >= 17 };
}

const timeLabel = (time: TimeShape) =>
  `${
    {
      epoch: `epoch ${time.unit === "us" ? "µs" : time.unit}`,
      "java-reverse": "Long.MAX_VALUE − epoch ms",
      "date-digits": "date digits",
      iso: "ISO-8601",
      "time-of-day": "time of day",
      binary: `8-byte epoch ${time.unit === "us" ? "µs" : time.unit}`,
    }[time.shape]
  }${time.reverse ? ", reversed" : ""}`;

function classify(
  values: readonly string[],
  index: number,
  previous: Classified | undefined,
  binary: boolean,
): Classified {
  const distinct = new Set(values).size;
  const ascending = ascendingShare(values);
  const examples = [...new Set(values)].slice(0, 3);
  const base = { distinct, ascending, examples };
  const time = (binary ? binaryTimeShape(values) : undefined) ?? timeShape(values);
  if (distinct === 1) {
    return time && time.granularityS >= BUCKET_GRANULARITY_S
      ? { ...base, kind: "time-bucket", label: `${timeLabel(time)} (one in the sample)`, time }
      : { ...base, kind: "constant", label: "constant", value: values[0]! };
  }
  const salt = index === 0 ? saltPrefixShape(values) : undefined;
  if (salt) return { ...base, kind: "salt", label: `${salt.buckets} salt buckets (${salt.format})`, salt };
  const id = idShape(values);
  if (id) return { ...base, kind: id.timeOrdered ? "time-ordered-id" : "hashed", label: id.note, id };
  if (time)
    return time.granularityS >= BUCKET_GRANULARITY_S
      ? { ...base, kind: "time-bucket", label: timeLabel(time), time }
      : { ...base, kind: "timestamp", label: timeLabel(time), time };
  const timeOfDay = previous?.kind === "time-bucket" ? timeOfDayShape(values) : undefined;
  if (timeOfDay) return { ...base, kind: "timestamp", label: timeLabel(timeOfDay), time: timeOfDay };
  if (looksHashed(values)) return { ...base, kind: "hashed", label: "hex hash" };
  const sequence = sequenceShape(values, distinct, ascending);
  if (sequence)
    return {
      ...base,
      kind: "sequence",
      label: sequence.snowflake
        ? "Snowflake-style id (time in the top bits)"
        : `counter${sequence.width === undefined ? "" : `, ${sequence.width} digits`}`,
      sequence,
    };
  const low = isLowCardinality(distinct, values.length);
  if (values.every((value) => REVERSE_DOMAIN.test(value)))
    return { ...base, kind: low ? "low-cardinality" : "high-cardinality", label: "reverse-domain host" };
  return {
    ...base,
    kind: low ? "low-cardinality" : "high-cardinality",
    label: low ? "few values" : "many values",
  };
}

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** `com.example.www`: a top-level domain, then labels (HBase's reverse URL order). */
const REVERSE_DOMAIN =
  /^(?:com|org|net|edu|gov|mil|int|io|co|ai|app|dev|info|biz|[a-z]{2})(?:\.[a-z0-9-]+)+$/;

/** Names by kind; a time bucket is named for its period, a constant needs none. */
const BASE_NAMES: Record<Exclude<KeyComponentKind, "constant" | "time-bucket">, string> = {
  salt: "salt",
  timestamp: "ts",
  sequence: "seq",
  "time-ordered-id": "id",
  hashed: "hash",
  "low-cardinality": "part",
  "high-cardinality": "id",
};

/** What a time bucket's turn is: `year`, `month`, `day` or `hour`. */
export function bucketPeriod(time: TimeShape): string {
  const g = time.granularityS;
  return g >= 365 * 86400 ? "year" : g >= 28 * 86400 ? "month" : g >= 86400 ? "day" : "hour";
}

/** Field names: the constant word before the component, else by kind (`ts`, `seq`, `id`, …), unique. */
function nameComponents(components: readonly Positioned[]): KeyComponent[] {
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
      previous?.kind === "constant" ? previous.value.replace(/[^A-Za-z0-9_]/g, "").toLowerCase() : "";
    const byKind =
      component.kind === "time-bucket"
        ? bucketPeriod(component.time)
        : component.label === "reverse-domain host"
          ? "host"
          : BASE_NAMES[component.kind];
    const moving =
      MOVING_KINDS.has(component.kind) || component.kind === "salt" || component.kind === "time-bucket";
    // A word of two letters or more names the component (`sensor-0042` → sensor); `u` in `u42` does not.
    return {
      ...component,
      name: unique(!moving && word.length >= 2 && IDENTIFIER.test(word) ? word : byKind),
    };
  });
}

function spreadingBefore(components: readonly KeyComponent[], moving: KeyComponent | undefined): string[] {
  if (!moving) return [];
  return components
    .slice(0, moving.index)
    .filter((c) => SPREADING_KINDS.has(c.kind))
    .map((c) => c.name);
}

function explain(
  components: readonly KeyComponent[],
  moving: KeyComponent | undefined,
  leads: boolean,
): string {
  const buckets = components.filter(
    (c): c is Extract<KeyComponent, { kind: "time-bucket" }> => c.kind === "time-bucket",
  );
  const [first] = buckets;
  const turning = first
    ? ` ${buckets.map((c) => c.name).join(", ")} turns every ${bucketPeriod(first.time)}: each new one starts as one tablet on one node.`
    : "";
  if (!moving)
    return `No component moves with every write: writes land wherever their values sort.${turning}`;
  const what = `${moving.name} (${moving.label})`;
  if (leads) {
    const before = moving.index > 0 && components.slice(0, moving.index).some((c) => c.kind !== "constant");
    return `Writes are sequential: ${what} leads the key${before ? " after constant or low-cardinality components" : ""}, so every new row sorts next to the last one and one tablet takes the writes.${turning}`;
  }
  return `Writes spread over the values of ${spreadingBefore(components, moving).join(", ")}; ${what} only orders rows within each of them.${turning}`;
}

export function inferKeyStructure(sample: SplitKeySample): KeyStructure {
  const width = sample.rows[0]?.length ?? 0;
  const columns = Array.from({ length: width }, (_, column) => sample.rows.map((row) => row[column]!));
  const classified: Positioned[] = [];
  columns.forEach((values, index) => {
    const component =
      index === 0 && sample.saltByte
        ? {
            distinct: new Set(values).size,
            ascending: ascendingShare(values),
            examples: [...new Set(values)]
              .slice(0, 3)
              .map((value) => `0x${value.charCodeAt(0).toString(16).padStart(2, "0")}`),
            kind: "salt" as const,
            label: `${sample.saltByte.buckets} salt buckets (one byte, as Apache Phoenix)`,
            salt: sample.saltByte,
          }
        : classify(values, index, classified[index - 1], sample.binary);
    classified.push({ index, ...component, ...(sample.glued.includes(index) ? { glued: true } : {}) });
  });
  const components = nameComponents(classified);
  const moving = components.find((component) => MOVING_KINDS.has(component.kind));
  const leads =
    moving !== undefined && !components.slice(0, moving.index).some((c) => SPREADING_KINDS.has(c.kind));
  return {
    separator: sample.separator,
    binary: sample.binary,
    sampleSize: sample.rows.length,
    skipped: sample.skipped,
    components,
    sequential: leads ? moving : undefined,
    spreadBy: spreadingBefore(components, moving),
    explanation: explain(components, moving, leads),
  };
}
