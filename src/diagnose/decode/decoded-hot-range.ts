/**
 * A hot range read through the schema: its boundaries decoded, and the sampled keys inside it
 * decoded field by field (which buckets, tenants, devices and times the heat covers). Pure.
 */
import type { KeySchema } from "../../keys/types.js";
import { type DecodedBoundary, decodeBoundary, decodeKey, valueText } from "./decoded-boundary.js";
import { entityFields, entityOf } from "./entities.js";
import { type HotRange, inHotRange } from "./hot-tablet.js";

/** One field over the sampled keys in the range: how many values, the first and last. */
export interface FieldSpan {
  field: string;
  distinct: number;
  min: string;
  max: string;
}

export interface DecodedHotRange {
  startKey: Buffer;
  endKey: Buffer;
  start: DecodedBoundary;
  end: DecodedBoundary;
  /** One key at both ends: the tablet is a single row. */
  singleKey: boolean;
  maxCpuPercent: number;
  /** Windows it was hot in (recurrences). */
  windows: HotRange["windows"];
  /** Distinct sampled keys that fall in the range. */
  sampledKeys: number;
  /**
   * Distinct entities (the key's fields before its time, entities.ts) the range holds: those of
   * the sampled keys inside and of its decoded boundaries; exactly one when both boundaries are
   * keys of one entity and the entity leads the key (nothing else sorts between them).
   */
  entities: number;
  /** Buckets of the sampled keys in the range (salted schemas). */
  buckets: number[];
  fields: FieldSpan[];
}

/** Compares decoded values in key order: numbers and bigints by value, dates by time, text as text. */
function compareValues(a: unknown, b: unknown): number {
  const x = comparable(a);
  const y = comparable(b);
  return x < y ? -1 : x > y ? 1 : 0;
}

/** A decoded value as `<` orders it: dates by time; a schema decodes only numbers, bigints, text and dates. */
function comparable(value: unknown): number | bigint | string {
  if (value instanceof Date) return value.getTime();
  if (typeof value === "number" || typeof value === "bigint" || typeof value === "string") return value;
  return String(value);
}

export function decodeHotRange(
  schema: KeySchema,
  range: HotRange,
  sample: readonly Buffer[],
): DecodedHotRange {
  const inside = new Map<string, Buffer>();
  for (const key of sample) if (inHotRange(range, key)) inside.set(key.toString("hex"), key);
  const decoded = [...inside.values()].flatMap((key) => {
    try {
      return [decodeKey(schema, key)];
    } catch {
      return [];
    }
  });
  const fields = schema.fields.flatMap(({ name }) => {
    const values = decoded.map((key) => key.values[name]).filter((value) => value !== undefined);
    if (values.length === 0) return [];
    const sorted = [...values].sort(compareValues);
    return [
      {
        field: name,
        distinct: new Set(values.map(valueText)).size,
        min: valueText(sorted[0]),
        max: valueText(sorted.at(-1)),
      },
    ];
  });
  const start = decodeBoundary(schema, range.startKey);
  const end = decodeBoundary(schema, range.endKey);
  const entity = entityFields(schema);
  const boundaryEntities = [start, end].flatMap((boundary) =>
    boundary.kind === "decoded" ? [entityOf(boundary.values, entity.fields)] : [],
  );
  const oneEntity =
    entity.leading && boundaryEntities.length === 2 && boundaryEntities[0] === boundaryEntities[1];
  const entities = oneEntity
    ? 1
    : new Set([...decoded.map((key) => entityOf(key.values, entity.fields)), ...boundaryEntities]).size;
  return {
    startKey: range.startKey,
    endKey: range.endKey,
    start,
    end,
    singleKey: range.startKey.length > 0 && range.startKey.equals(range.endKey),
    maxCpuPercent: range.maxCpuPercent,
    windows: range.windows,
    sampledKeys: inside.size,
    entities,
    buckets: [...new Set(decoded.map((key) => key.bucket))].sort((a, b) => a - b),
    fields,
  };
}
