/**
 * The lab's proof that a simulated design also works for real: write a sample of the scenario's
 * rows through SaltedTable into a store, read latest-N back for sample entities, and check the
 * answer against the rows written.
 */
import { compileSchema, summarizeBucketCounts } from "../keys/index.js";
import type { FieldValue, KeySchema, Query } from "../keys/types.js";
import { findScenarioDesign, type Scenario } from "../sim/scenario/scenario.js";
import { type SampleRow, sampleRows } from "../sim/workload/sample-rows.js";
import type { Store } from "../store/store.js";
import { SaltedTable, type TableRow } from "../table/salted-table.js";

export interface DesignCheck {
  design: string;
  buckets: number;
  rowsWritten: number;
  /** Rows in the fullest salt bucket over the mean, for a sample of distinct entities (1 = even). */
  bucketSkew: number;
  /** Latest-N read back for sample entities, or why this design cannot serve it. */
  latest: LatestCheck | { unavailable: string };
}

export interface LatestCheck {
  n: number;
  entities: number;
  /** Ranges one latest-N read touches (all its queries together). */
  fanout: number;
  /** Every read returned exactly the newest n rows written for its entity, newest first. */
  correct: boolean;
}

export interface LibraryCheckOptions {
  /** Rows of distinct entities, for the write rate and the bucket spread. */
  rows?: number;
  /** Entities read back with latest-N, each written `rowsPerEntity` rows. */
  entities?: number;
  rowsPerEntity?: number;
  /** N of latest-N; default: the scenario's first latest read, else 100. */
  n?: number;
}

const WRITE_BATCH = 5_000;

export async function checkDesign(
  scenario: Scenario,
  designName: string,
  store: Store,
  options: LibraryCheckOptions = {},
): Promise<DesignCheck> {
  const design = findScenarioDesign(scenario, designName);
  const schema = compileSchema(design.schema);
  const latestRead = scenario.workload.reads.find((read) => read.kind === "latest");
  const n = options.n ?? latestRead?.limit ?? 100;
  const entities = options.entities ?? 20;
  const spread = sampleRows(scenario, designName, { count: options.rows ?? 20_000, overS: 600 });
  const readGroup = latestRead?.group ?? scenario.workload.groups[0]!.name;
  const concentrated = sampleRows(scenario, designName, {
    count: entities * (options.rowsPerEntity ?? 2 * n) * scenario.workload.groups.length,
    overS: 600,
    entitiesPerGroup: entities,
  }).filter((row) => row.group === readGroup);

  const table = await SaltedTable.open(store, schema, { create: true });
  const written = [...spread, ...concentrated];
  for (let at = 0; at < written.length; at += WRITE_BATCH) {
    const batch = written
      .slice(at, at + WRITE_BATCH)
      .map((row) => ({ values: row.values, cells: { v: "1" } }));
    const { failed } = await table.putMany(batch);
    if (failed.length > 0) {
      throw new Error(`${design.name}: ${failed.length} rows failed to write, first: ${failed[0]!.reason}`);
    }
  }

  const counts = new Array<number>(schema.bucketCount).fill(0);
  for (const row of spread) counts[schema.decode(row.key).bucket]!++;

  // Every row written for the entities read back, whichever sample it came from.
  const readEntities = new Set(concentrated.map((row) => row.entity));
  const byEntity = new Map<number, SampleRow[]>();
  for (const row of written) {
    if (row.group !== readGroup || !readEntities.has(row.entity)) continue;
    const rows = byEntity.get(row.entity);
    if (rows) rows.push(row);
    else byEntity.set(row.entity, [row]);
  }

  let latest: DesignCheck["latest"];
  try {
    latest = await checkLatest(table, byEntity, n);
  } catch (error) {
    latest = { unavailable: (error as Error).message };
  }

  return {
    design: design.name,
    buckets: schema.bucketCount,
    rowsWritten: written.length,
    bucketSkew: summarizeBucketCounts(counts).skew,
    latest,
  };
}

async function checkLatest(
  table: SaltedTable,
  byEntity: Map<number, SampleRow[]>,
  n: number,
): Promise<LatestCheck> {
  const schema = table.schema;
  const timeField = timeFieldOf(schema);
  let correct = true;
  let fanout = 0;
  for (const rows of byEntity.values()) {
    const queries = rows[0]!.entityQueries;
    if (!Array.isArray(queries)) throw new Error(queries.unreadable);
    fanout = queries.reduce((sum, query) => sum + schema.plan({ ...query, limit: n }).fanout, 0);
    const got = await latestAcross(table, queries, n, timeField);
    correct &&= sameKeys(got, newestWritten(rows, n, timeField));
  }
  return { n, entities: byEntity.size, fanout, correct };
}

/**
 * Latest-N over one or more queries: a key that leads with a per-point field (field promotion)
 * needs one query per value of it, merged newest first by the application.
 */
async function latestAcross(
  table: SaltedTable,
  queries: Query[],
  n: number,
  timeField: string,
): Promise<TableRow[]> {
  if (queries.length === 1) return table.latest(queries[0]!, n);
  const parts = await Promise.all(queries.map((query) => table.latest(query, n)));
  return parts
    .flat()
    .sort((a, b) => timeOf(b.values[timeField]) - timeOf(a.values[timeField]))
    .slice(0, n);
}

/** The newest n distinct keys written (a later write to the same key replaces the row). */
function newestWritten(rows: SampleRow[], n: number, timeField: string): Buffer[] {
  const unique = new Map(rows.map((row) => [row.key.toString("hex"), row]));
  return [...unique.values()]
    .sort((a, b) => timeOf(b.values[timeField]) - timeOf(a.values[timeField]))
    .slice(0, n)
    .map((row) => row.key);
}

function sameKeys(rows: TableRow[], keys: Buffer[]): boolean {
  return rows.length === keys.length && rows.every((row, i) => row.key.equals(keys[i]!));
}

function timeFieldOf(schema: KeySchema): string {
  const field = schema.fields.find((f) => f.codec.type === "timestamp");
  if (field === undefined)
    throw new Error(`schema "${schema.spec.name}" has no timestamp field to read latest-N by`);
  return field.name;
}

function timeOf(value: FieldValue | undefined): number {
  return value instanceof Date ? value.getTime() : Number(value);
}
