/**
 * Is the new table the old one, re-keyed? Two checks (the fleet incident's validation window):
 * - every row, by logical key range of the first field: row count and an order-independent
 *   checksum of decoded values and cells on each side;
 * - for a sample of entities (e.g. devices), the first N rows in logical order on each side —
 *   the fleet incident's latest-100 when the next field is a reverse timestamp.
 */
import pLimit from "p-limit";
import type { FieldValue, FieldValues, KeySchema } from "../keys/types.js";
import type { Store } from "../store/store.js";
import { TableScan } from "../table/salted-table.js";
import { RESERVED_PREFIX } from "../table/schema-guard.js";
import { dataPages } from "./data-rows.js";
import { MigrateOptionError } from "./migrate-option-error.js";
import { canonicalRow, canonicalValue, RowSet, rowDigest } from "./row-digest.js";

export interface ValidateMigrationOptions {
  source: Store;
  sourceSchema: KeySchema;
  target: Store;
  targetSchema: KeySchema;
  /** Logical key ranges (of the source's first field) to count and checksum separately. Default 16. */
  ranges?: number;
  /** Entities to compare row by row. Default 100; 0 skips the check. */
  sampleEntities?: number;
  /** Rows per entity compared (latest-N). Default 100. */
  rowsPerEntity?: number;
  /** Fields naming an entity; they must lead both schemas. Default: those before the source's reverse timestamp. */
  entityFields?: string[];
  /** The field whose value ranges are checksummed separately (default: the source's first field). */
  rangeField?: string;
  /**
   * Rows to compare (default: all). Rows it rejects are left out of both checks on both sides —
   * during dual-write, those written while validate runs (see `validateLive`).
   */
  include?: (values: Record<string, FieldValue>) => boolean;
  signal?: AbortSignal;
  onProgress?: (rowsChecked: number) => void;
}

export interface MigrationRangeSummary {
  field: string;
  /** Inclusive lower bound; undefined from the start. */
  from?: FieldValue;
  /** Exclusive upper bound; undefined to the end. */
  to?: FieldValue;
  source: { rows: number; checksum: string };
  target: { rows: number; checksum: string };
}

export type MigrationDifference =
  | ({ kind: "range" } & MigrationRangeSummary)
  | {
      kind: "entity";
      entity: FieldValues;
      /** Position of the first row that differs, in logical order. */
      index: number;
      source: string | null;
      target: string | null;
    }
  | { kind: "undecodable"; side: "source" | "target"; key: string; reason: string }
  /** Sharded validation: a row one side has and `side` lacks (`key`: hex, on the side that has it). */
  | { kind: "missing"; side: "source" | "target"; key: string; row: string; reason?: string }
  /** Sharded validation: the row is on both sides with different cells. */
  | { kind: "row"; sourceKey: string; targetKey: string; source: string; target: string };

export interface MigrationValidationReport {
  /** Rows decoded and checksummed, rows whose key the side's schema could not decode, rows `include` left out. */
  source: { rows: number; checksum: string; undecodable: number; excluded: number };
  target: { rows: number; checksum: string; undecodable: number; excluded: number };
  ranges: MigrationRangeSummary[];
  entities: { fields: string[]; compared: number; rowsPerEntity: number } | { skipped: string };
  differences: MigrationDifference[];
}

const PAGE = 1000;
/** Entities compared concurrently; each read already fans out over the buckets. */
const ENTITY_READS_AT_ONCE = 4;
const MAX_UNDECODABLE_LISTED = 100;

export async function validateMigration(
  options: ValidateMigrationOptions,
): Promise<MigrationValidationReport> {
  const { source, sourceSchema, target, targetSchema } = options;
  const rangeField = options.rangeField ?? sourceSchema.fields[0]!.name;
  for (const schema of [sourceSchema, targetSchema]) {
    if (!schema.fields.some((field) => field.name === rangeField))
      throw new Error(
        `range field ${JSON.stringify(rangeField)} is not a field of schema "${schema.spec.name}"`,
      );
  }
  const boundaries = await rangeBoundaries(source, sourceSchema, rangeField, options.ranges ?? 16);
  const entityPlan = entityFieldsFor(sourceSchema, targetSchema, options.entityFields);
  const pass: FullPass = {
    options,
    rangeField,
    boundaries,
    include: options.include ?? (() => true),
    entityPlan,
    reservoir: new EntityReservoir(typeof entityPlan === "string" ? 0 : (options.sampleEntities ?? 100)),
    differences: [],
    checked: 0,
    undecodableListed: 0,
  };
  const [sourceTally, targetTally] = await Promise.all([
    tally(pass, "source", source, sourceSchema),
    tally(pass, "target", target, targetSchema),
  ]);
  const ranges = compareRanges(pass, sourceTally.perRange, targetTally.perRange);
  const entities = await compareSampledEntities(pass);
  return {
    source: sourceTally.side,
    target: targetTally.side,
    ranges,
    entities,
    differences: pass.differences,
  };
}

/** What the two sides' full passes share: the ranges, the entity sample, the differences and rows checked so far. */
interface FullPass {
  options: ValidateMigrationOptions;
  rangeField: string;
  boundaries: FieldValue[];
  include: (values: Record<string, FieldValue>) => boolean;
  /** The entity fields, or why entities are not compared. */
  entityPlan: string[] | string;
  reservoir: EntityReservoir;
  differences: MigrationDifference[];
  checked: number;
  undecodableListed: number;
}

/**
 * Every row of one side: its digest into the whole table's and its range's checksum; undecodable
 * rows listed as differences; the source's rows offered to the entity sample.
 */
async function tally(pass: FullPass, side: "source" | "target", store: Store, schema: KeySchema) {
  const { options, boundaries, rangeField, include, entityPlan } = pass;
  const perRange = boundaries.map(() => new RowSet()).concat(new RowSet());
  const whole = new RowSet();
  let undecodable = 0;
  let excluded = 0;
  for await (const page of dataPages(store, PAGE)) {
    options.signal?.throwIfAborted();
    for (const row of page) {
      let values: Record<string, FieldValue>;
      try {
        values = schema.decode(row.key).values;
      } catch (error) {
        undecodable++;
        if (pass.undecodableListed++ < MAX_UNDECODABLE_LISTED)
          pass.differences.push({
            kind: "undecodable",
            side,
            key: row.key.toString("hex"),
            reason: (error as Error).message,
          });
        continue;
      }
      if (!include(values)) {
        excluded++;
        continue;
      }
      const digest = rowDigest(values, row.cells);
      whole.add(digest);
      perRange[rangeIndex(boundaries, values[rangeField]!)]!.add(digest);
      if (side === "source" && typeof entityPlan !== "string") pass.reservoir.offer(entityPlan, values);
    }
    pass.checked += page.length;
    options.onProgress?.(pass.checked);
  }
  return { side: { rows: whole.rows, checksum: whole.checksum, undecodable, excluded }, perRange };
}

/** Each range's rows and checksum on both sides; a range that differs is a difference. */
function compareRanges(pass: FullPass, sourceSets: RowSet[], targetSets: RowSet[]): MigrationRangeSummary[] {
  const { boundaries } = pass;
  return sourceSets.map((sourceSet, i) => {
    const targetSet = targetSets[i]!;
    const summary: MigrationRangeSummary = {
      field: pass.rangeField,
      ...(i > 0 ? { from: boundaries[i - 1] } : {}),
      ...(i < boundaries.length ? { to: boundaries[i] } : {}),
      source: { rows: sourceSet.rows, checksum: sourceSet.checksum },
      target: { rows: targetSet.rows, checksum: targetSet.checksum },
    };
    if (!sourceSet.equals(targetSet)) pass.differences.push({ kind: "range", ...summary });
    return summary;
  });
}

/** The sampled entities' latest-N rows compared side by side, a few entities at once. */
async function compareSampledEntities(pass: FullPass): Promise<MigrationValidationReport["entities"]> {
  const { options, entityPlan } = pass;
  if (typeof entityPlan === "string") return { skipped: entityPlan };
  const rowsPerEntity = options.rowsPerEntity ?? 100;
  const sampled = pass.reservoir.entities();
  const limit = pLimit(ENTITY_READS_AT_ONCE);
  const compared = await Promise.all(
    sampled.map((entity) =>
      limit(() => {
        options.signal?.throwIfAborted();
        return compareEntity(options, entity, rowsPerEntity);
      }),
    ),
  );
  for (const difference of compared) if (difference) pass.differences.push(difference);
  return { fields: entityPlan, compared: sampled.length, rowsPerEntity };
}

/** Up to `count − 1` distinct first-field values spread over the source, from its sampled keys. */
async function rangeBoundaries(
  store: Store,
  schema: KeySchema,
  field: string,
  count: number,
): Promise<FieldValue[]> {
  if (!Number.isInteger(count) || count < 1) throw new MigrateOptionError("ranges", count, "an integer ≥ 1");
  if (count === 1) return [];
  const values: FieldValue[] = [];
  for (const key of await store.sampleKeys(count * 8)) {
    if (key.compare(RESERVED_PREFIX) >= 0) continue;
    try {
      values.push(schema.decode(key).values[field]!);
    } catch {
      // A sampled split point need not be a row key; it only steers where ranges split.
    }
  }
  const distinct = [...new Map(values.map((v) => [canonicalValue(v), v])).values()].sort(compareValues);
  const boundaries: FieldValue[] = [];
  for (let i = 1; i < count; i++) {
    const value = distinct[Math.floor((i * distinct.length) / count)];
    const last = boundaries.at(-1);
    if (value !== undefined && (last === undefined || compareValues(last, value) < 0)) boundaries.push(value);
  }
  return boundaries;
}

function rangeIndex(boundaries: readonly FieldValue[], value: FieldValue): number {
  let low = 0;
  let high = boundaries.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if (compareValues(boundaries[mid]!, value) <= 0) low = mid + 1;
    else high = mid;
  }
  return low;
}

/** Numbers and bigints numerically, strings by code unit; only consistency matters for ranges. */
function compareValues(a: FieldValue, b: FieldValue): number {
  const x = a instanceof Date ? a.getTime() : a;
  const y = b instanceof Date ? b.getTime() : b;
  if (typeof x === "string" || typeof y === "string") {
    if (typeof x !== typeof y) return typeof x === "string" ? 1 : -1;
    return x < y ? -1 : x > y ? 1 : 0;
  }
  return x < y ? -1 : x > y ? 1 : 0;
}

/** The entity fields to sample, or why the entity check cannot run. */
function entityFieldsFor(from: KeySchema, to: KeySchema, requested: string[] | undefined): string[] | string {
  const names = (schema: KeySchema) => schema.fields.map((f) => f.name);
  const leads = (schema: KeySchema, fields: string[]) =>
    fields.every((field, i) => names(schema)[i] === field);
  if (requested) {
    for (const schema of [from, to]) {
      if (!leads(schema, requested)) {
        throw new MigrateOptionError(
          "entityFields",
          requested,
          `leading fields of both schemas ("${schema.spec.name}" starts with ${names(schema).join(", ")})`,
          `entity fields ${requested.join(", ")} must be the leading fields of both schemas; "${schema.spec.name}" starts with ${names(schema).join(", ")}`,
        );
      }
    }
    return requested;
  }
  const reverse = from.fields.findIndex((f) => f.codec.type === "timestamp" && f.codec.reverse);
  const candidate = names(from).slice(0, reverse > 0 ? reverse : from.fields.length - 1);
  let common = 0;
  while (common < candidate.length && names(to)[common] === candidate[common]) common++;
  return common > 0
    ? candidate.slice(0, common)
    : "the schemas share no leading fields, so no entity reads the same way on both sides";
}

/** Reservoir sampling of rows (algorithm R); duplicates collapse, so busy entities are likelier. */
class EntityReservoir {
  private readonly kept: FieldValues[] = [];
  private seen = 0;

  constructor(private readonly size: number) {}

  offer(fields: readonly string[], values: Record<string, FieldValue>): void {
    if (this.size === 0) return;
    this.seen++;
    const slot = this.kept.length < this.size ? this.kept.length : Math.floor(Math.random() * this.seen);
    if (slot < this.size) this.kept[slot] = Object.fromEntries(fields.map((f) => [f, values[f]!]));
  }

  entities(): FieldValues[] {
    return [...new Map(this.kept.map((e) => [canonicalRow(e, new Map()), e])).values()];
  }
}

async function compareEntity(
  options: ValidateMigrationOptions,
  entity: FieldValues,
  n: number,
): Promise<MigrationDifference | undefined> {
  const include = options.include ?? (() => true);
  const [sourceRows, targetRows] = await Promise.all([
    firstRows(options.source, options.sourceSchema, entity, n, include),
    firstRows(options.target, options.targetSchema, entity, n, include),
  ]);
  for (let index = 0; index < Math.max(sourceRows.length, targetRows.length); index++) {
    if (sourceRows[index] !== targetRows[index]) {
      return {
        kind: "entity",
        entity,
        index,
        source: sourceRows[index] ?? null,
        target: targetRows[index] ?? null,
      };
    }
  }
  return undefined;
}

/** The entity's first `n` included rows in logical order, as canonical text. */
async function firstRows(
  store: Store,
  schema: KeySchema,
  entity: FieldValues,
  n: number,
  include: (values: Record<string, FieldValue>) => boolean,
): Promise<string[]> {
  const scan = new TableScan(store, schema, schema.plan({ eq: entity }), {
    concurrency: 16,
    pageSize: Math.min(n, 256),
    retry: { attempts: 3, baseDelayMs: 20 },
    // The full pass lists every undecodable row as a difference; the entity reads skip them quietly.
    onWarning: () => {},
  });
  const rows: string[] = [];
  for await (const row of scan) {
    if (!include(row.values)) continue;
    rows.push(canonicalRow(row.values, row.cells));
    if (rows.length === n) break;
  }
  return rows;
}
