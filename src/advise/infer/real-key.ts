/**
 * The real key behind a modelled one. The simulator needs times as timestamps and counters as
 * numbers; the application's key holds ISO text, ULIDs, `txn00001`. A recommended schema must read
 * the real key, so it takes the real codecs back: text ids and times as raw strings, a word and
 * its digits (`txn` + `00001`) as one field, Phoenix's BIGINT as int64.
 */
import type { CodecSpec, SchemaSpec, SegmentSpec } from "../../keys/types.js";
import type { KeyStructure } from "./key-structure.js";

export interface RealKey {
  /** Codecs that read the real key's fields where the model's differ. */
  codecs: Readonly<Record<string, CodecSpec>>;
  /** Fields whose real value starts with the literal before them (no separator between them). */
  glued: Readonly<Record<string, string>>;
  /** Fields holding a time-ordered event id (UUID v1/v7, ULID), modelled as a time: each names one write. */
  eventIds: readonly string[];
}

export const MODELLED_AS_IS: RealKey = { codecs: {}, glued: {}, eventIds: [] };

const RAW: CodecSpec = { type: "string", raw: true };

export function realKeyOf(structure: KeyStructure): RealKey {
  const codecs: Record<string, CodecSpec> = {};
  const glued: Record<string, string> = {};
  structure.components.forEach((component, index) => {
    const real =
      component.kind === "sequence" || component.kind === "time-ordered-id" || component.glued
        ? RAW
        : component.kind === "timestamp" || component.kind === "time-bucket"
          ? component.time.realCodec
          : undefined;
    if (real) codecs[component.name] = real;
    const before = structure.components[index - 1];
    if (component.glued && before?.kind === "constant") glued[component.name] = before.value;
  });
  const eventIds = structure.components
    .filter((component) => component.kind === "time-ordered-id")
    .map((component) => component.name);
  return { codecs, glued, eventIds };
}

/** The schema with the real key's codecs, and glued words folded back into their fields. */
export function realSchemaOf(schema: SchemaSpec, real: RealKey): SchemaSpec {
  const segments: SegmentSpec[] = [];
  schema.segments.forEach((segment, index) => {
    const next = schema.segments[index + 1];
    if ("literal" in segment && next && "field" in next && real.glued[next.field] === segment.literal) return;
    segments.push(
      "field" in segment && real.codecs[segment.field]
        ? { ...segment, codec: real.codecs[segment.field]! }
        : segment,
    );
  });
  return { ...schema, segments };
}
