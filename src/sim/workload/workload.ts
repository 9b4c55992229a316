/**
 * A workload group compiled against one design's key schema: the real field values of each write,
 * and which leading fields a read or a footprint can bind. Keys always come from the schema, so a
 * design change is a schema change.
 */
import type { CodecSpec, FieldValue, FieldValues, KeySchema, Query } from "../../keys/types.js";
import { meanMultiplier, peakMultiplier } from "../scenario/arrival.js";
import type { FieldGenerator, ReadPattern, ScenarioDesign, WorkloadGroup } from "../scenario/scenario.js";
import { compileTemplate, scramble } from "../scenario/template.js";
import { MissingKeyFieldError, UnplannableReadError } from "./workload-errors.js";
import { shardFootprint } from "./write-shard-keys.js";

/** How one schema field gets its value in this group. */
type FieldSource =
  | { kind: "entity"; name: string; value: (entity: number) => FieldValue }
  | { kind: "pick"; name: string; values: FieldValue[] }
  | { kind: "sequence"; name: string; start: number }
  | { kind: "time"; name: string };

/** Leading fields a query binds: entity fields by equality, picked fields expanded one query each. */
interface Binding {
  bound: FieldSource[];
  /** The first field left unbound (time or sequence), if any. */
  next: FieldSource | undefined;
}

const MAX_EXPANSION = 4096;

export class CompiledGroup {
  readonly name: string;
  readonly entities: number;
  /** Rows written per second on average (after batching). */
  readonly opsPerS: number;
  readonly rowBytes: number;
  readonly pointsPerRow: number;
  /** Bytes of one point (one write before batching). */
  readonly pointBytes: number;
  /** Row keys one entity writes at once: one per combination of the values picked into the key. */
  readonly rowsPerEntity: number;
  /**
   * How long one row key keeps taking an entity's writes: its time field's grain (or the batch
   * interval), forever with no time in the key, 0 when a sequence gives every write its own row.
   */
  readonly rowKeyLifetimeS: number;
  /** Whether writes sweep the key space over time (time or a sequence leads the entity fields). */
  readonly moving: boolean;
  private readonly fields: FieldSource[];
  private readonly binding: Binding;
  private readonly batchS: number;

  constructor(
    readonly schema: KeySchema,
    private readonly group: WorkloadGroup,
    design: ScenarioDesign,
    defaultRowBytes: number,
    private readonly startMs: number,
  ) {
    this.name = group.name;
    this.entities = group.entities;
    this.batchS = design.batch ?? 0;
    this.fields = schema.fields.map((field) => fieldSource(field.name, field.codec, group, design.name));
    // A batched row holds one entity's points of one interval under one key: a value picked per
    // write into the key (a metric, a shard) splits them over that many rows.
    this.rowsPerEntity = this.fields.reduce(
      (product, field) => product * (field.kind === "pick" ? field.values.length : 1),
      1,
    );
    const pointsPerKeyPerS = group.writesPerS / group.entities / this.rowsPerEntity;
    this.pointsPerRow = Math.max(1, pointsPerKeyPerS * this.batchS);
    this.opsPerS = group.writesPerS / this.pointsPerRow;
    this.pointBytes = group.rowBytes ?? defaultRowBytes;
    this.rowBytes = Math.round(this.pointBytes * this.pointsPerRow);
    this.rowKeyLifetimeS = rowKeyLifetime(schema, this.fields, this.batchS);
    this.binding = bindLeading(this.fields);
    const firstOrdered = this.fields.find((field) => field.kind !== "pick");
    this.moving =
      firstOrdered === undefined || firstOrdered.kind === "time" || firstOrdered.kind === "sequence";
  }

  multiplier(tS: number, dtS: number): number {
    return meanMultiplier(this.group.arrival, tS, dtS, this.startMs);
  }

  /** The largest multiplier its arrival pattern reaches. */
  get peakMultiplier(): number {
    return peakMultiplier(this.group.arrival);
  }

  /** Rows one entity writes per second on average. */
  get rowsPerEntityPerS(): number {
    return this.opsPerS / this.entities;
  }

  /** The values of one write by `entity` at `tS`; `serial` numbers the group's writes. */
  writeValues(entity: number, tS: number, serial: number): FieldValues {
    const values: FieldValues = {};
    for (const field of this.fields) values[field.name] = this.valueOf(field, entity, tS, serial);
    return values;
  }

  /**
   * The values of a row `entity` wrote at a uniformly random time in the last `windowS` before
   * `tS` (`share` in [0, 1) picks it), as a get of a stored row names them. A sequence numbers rows
   * in the order they were written, at the group's rate: an older row has a smaller id, and rows
   * from before the run hold the ids below the start (none below 0).
   */
  storedValues(entity: number, tS: number, windowS: number, share: number, serial: number): FieldValues {
    const values = this.writeValues(entity, tS - share * windowS, serial);
    for (const field of this.fields) {
      if (field.kind !== "sequence") continue;
      const newest = tS * this.opsPerS;
      const oldest = Math.max(-field.start, newest - windowS * this.opsPerS);
      values[field.name] = field.start + Math.floor(newest - share * (newest - oldest));
    }
    return values;
  }

  /** Starts of the ranges one entity's writes spread evenly over (the salt buckets or picked fields it fans into). */
  footprint(entity: number): Buffer[] {
    const starts = this.entityQueries(entity, {}).flatMap((query) =>
      this.schema.plan(query).ranges.map((r) => r.start),
    );
    return shardFootprint(this.schema, starts, () => this.writeValues(entity, 0, 0));
  }

  /** One query per combination of picked fields, binding the entity's leading fields, plus `extra`. */
  entityQueries(entity: number, extra: Omit<Query, "eq">): Query[] {
    let queries: FieldValues[] = [{}];
    for (const field of this.binding.bound) {
      if (field.kind === "entity") {
        for (const eq of queries) eq[field.name] = field.value(entity);
      } else if (field.kind === "pick") {
        queries = queries.flatMap((eq) => field.values.map((value) => ({ ...eq, [field.name]: value })));
      }
    }
    return queries.map((eq) => ({ ...extra, eq }));
  }

  /** The field a read must range over after the bound prefix (the time field), or an error naming why not. */
  timeFieldAfterPrefix(read: ReadPattern): string {
    const next = this.binding.next;
    if (next?.kind !== "time") {
      throw new Error(
        `read "${read.name}": schema "${this.schema.spec.name}" has no time field right after the fields group "${this.name}" binds`,
      );
    }
    return next.name;
  }

  /** Checks that a read for one entity can be planned: its entity fields must lead the key. */
  assertReadable(read: ReadPattern): void {
    const reason = this.unreadableReason();
    if (reason !== undefined)
      throw new UnplannableReadError(read.name, this.name, this.schema.spec.name, reason);
  }

  /** Why one entity's rows cannot be read as key ranges, or undefined when they can. */
  unreadableReason(): string | undefined {
    const unbound = this.fields.filter(
      (field) => field.kind === "entity" && !this.binding.bound.includes(field),
    );
    if (this.moving || unbound.length > 0) {
      return `schema "${this.schema.spec.name}" puts ${this.binding.next?.name ?? "no entity field"} before the fields that identify one "${this.name}" entity, so the read cannot be planned as a key range`;
    }
    const expansion = this.entityQueries(0, {}).length;
    if (expansion > MAX_EXPANSION) {
      return `binding picked fields expands to ${expansion} queries (max ${MAX_EXPANSION})`;
    }
    return undefined;
  }

  timeValue(tS: number): Date {
    const truncated = this.batchS > 0 ? Math.floor(tS / this.batchS) * this.batchS : tS;
    return new Date(this.startMs + truncated * 1000);
  }

  private valueOf(field: FieldSource, entity: number, tS: number, serial: number): FieldValue {
    switch (field.kind) {
      case "entity":
        return field.value(entity);
      case "pick":
        return field.values[scramble(serial) % field.values.length]!;
      case "sequence":
        return field.start + serial;
      case "time":
        return this.timeValue(tS);
    }
  }
}

function fieldSource(name: string, codec: CodecSpec, group: WorkloadGroup, design: string): FieldSource {
  const generator: FieldGenerator | undefined = group.fields[name];
  if (generator === undefined) {
    if (codec.type === "timestamp") return { kind: "time", name };
    throw new MissingKeyFieldError(design, group.name, name);
  }
  const numeric = codec.type === "uint" || codec.type === "int64";
  const convert = (value: string | number): FieldValue => {
    if (!numeric) return String(value);
    const number = Number(value);
    if (!Number.isSafeInteger(number)) {
      throw new Error(
        `group "${group.name}" field "${name}": "${value}" is not an integer for a ${codec.type} field`,
      );
    }
    return number;
  };
  if (typeof generator === "string") {
    const template = compileTemplate(generator, name);
    return { kind: "entity", name, value: (entity) => convert(template(entity)) };
  }
  if ("oneOf" in generator) return { kind: "pick", name, values: generator.oneOf.map(convert) };
  return { kind: "sequence", name, start: generator.sequence.start };
}

/** Seconds a key's time value stays the same, per codec unit (a `Date` holds milliseconds). */
const TIME_GRAIN_S = { s: 1, ms: 0.001, us: 0.001 } as const;

function rowKeyLifetime(schema: KeySchema, fields: FieldSource[], batchS: number): number {
  if (fields.some((field) => field.kind === "sequence")) return 0;
  const grains = schema.fields.flatMap((field, index) =>
    fields[index]!.kind === "time" && field.codec.type === "timestamp"
      ? [Math.max(batchS, TIME_GRAIN_S[field.codec.unit])]
      : [],
  );
  return grains.length === 0 ? Number.POSITIVE_INFINITY : Math.min(...grains);
}

function bindLeading(fields: FieldSource[]): Binding {
  const bound: FieldSource[] = [];
  for (let index = 0; index < fields.length; index++) {
    const field = fields[index]!;
    if (field.kind === "time" || field.kind === "sequence") return { bound, next: field };
    // A picked field is worth expanding only when an entity field follows it.
    if (field.kind === "pick" && !fields.slice(index + 1).some((later) => later.kind === "entity")) {
      return { bound, next: field };
    }
    bound.push(field);
  }
  return { bound, next: undefined };
}
