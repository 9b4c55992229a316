/**
 * Adopting a table keyspread did not create (an HBase/Phoenix import, the farm-sensor recipe written by
 * hand): before its schema row is recorded, a sample of its rows, spread over the key space, must
 * decode under the schema — a wrong bucket count or hash would otherwise hide every row.
 */
import pLimit from "p-limit";
import type { KeySchema } from "../keys/types.js";
import type { Store } from "../store/store.js";
import { checkCount, checkShare } from "./option-error.js";
import { describeKey, RowDecoder, type UndecodableRow } from "./row-decoder.js";
import { guardSchema, RESERVED_PREFIX, recordSchema, SCHEMA_ROW_KEY } from "./schema-guard.js";

export interface AdoptOptions {
  /** Rows to sample (default 1000), read in runs from points spread over the table. */
  sampleRows?: number;
  /** Largest share of sampled rows that may fail to decode (default 0.01). */
  maxUndecodableShare?: number;
  /** Record the schema whatever the sample shows (reads then skip and report such rows). */
  force?: boolean;
}

export interface AdoptReport {
  table: string;
  fingerprint: string;
  /** The table already recorded this schema: nothing was sampled or written. */
  alreadyAdopted: boolean;
  sampledRows: number;
  undecodableRows: number;
  /** The first undecodable rows (key in hex, reason). */
  undecodable: UndecodableRow[];
}

/**
 * Why adoption was refused: a row in keyspread's reserved range (its key in hex), or a sampled
 * share of undecodable rows above the allowed share.
 */
export type AdoptRefusal =
  | { problem: "reserved-key"; key: string }
  | { problem: "undecodable-share"; share: number; allowed: number };

/** The table cannot be adopted as it is (`refusal` says why); nothing was written. */
export class AdoptRefusedError extends Error {
  override readonly name = "AdoptRefusedError";
  constructor(
    message: string,
    readonly report: AdoptReport,
    readonly refusal: AdoptRefusal,
  ) {
    super(message);
  }
}

/** Runs of rows read from points spread over the table: SampleRowKeys on Bigtable. */
const SAMPLE_POINTS = 32;

export async function adoptTable(
  store: Store,
  schema: KeySchema,
  options: AdoptOptions = {},
): Promise<AdoptReport> {
  const sampleRows = options.sampleRows ?? 1000;
  const maxShare = options.maxUndecodableShare ?? 0.01;
  checkCount("sampleRows", sampleRows);
  checkShare("maxUndecodableShare", maxShare);
  const report: AdoptReport = {
    table: store.name,
    fingerprint: schema.fingerprint,
    alreadyAdopted: false,
    sampledRows: 0,
    undecodableRows: 0,
    undecodable: [],
  };
  if (await store.get(SCHEMA_ROW_KEY)) {
    await guardSchema(store, schema, false); // throws SchemaMismatchError for another schema
    return { ...report, alreadyAdopted: true };
  }
  for await (const row of store.read([{ start: RESERVED_PREFIX, end: null }], { limit: 1 })) {
    throw new AdoptRefusedError(
      `${store.name} has row ${describeKey(row.key)} starting with eight 0xFF bytes, which keyspread reserves for its schema row (reads never reach such rows); it cannot be adopted`,
      report,
      { problem: "reserved-key", key: row.key.toString("hex") },
    );
  }

  const decoder = new RowDecoder(schema, store.name, false);
  for (const row of await sampleRowsOf(store, sampleRows)) {
    report.sampledRows++;
    decoder.decode(row);
  }
  report.undecodableRows = decoder.count;
  report.undecodable = [...decoder.first];
  const share = report.sampledRows === 0 ? 0 : report.undecodableRows / report.sampledRows;
  if (share > maxShare && !options.force) {
    const first = report.undecodable
      .slice(0, 3)
      .map(({ key, reason }) => `${describeKey(Buffer.from(key, "hex"))} (${reason})`)
      .join("; ");
    throw new AdoptRefusedError(
      `${store.name}: ${report.undecodableRows} of ${report.sampledRows} sampled rows (${percent(share)}) do not decode under schema "${schema.spec.name}", more than the ${percent(maxShare)} allowed; first: ${first}. Check the schema (bucket count, hash, separator, salt.input), or adopt anyway with force (--force): reads then skip such rows and report them`,
      report,
      { problem: "undecodable-share", share, allowed: maxShare },
    );
  }
  await recordSchema(store, schema);
  return report;
}

/**
 * Up to `count` data rows: all of them when the table has no more; otherwise runs from the table's
 * start and from sampled keys, in key order, so a bad region anywhere shows.
 */
async function sampleRowsOf(store: Store, count: number) {
  const head = [];
  for await (const row of store.read([{ start: Buffer.alloc(0), end: RESERVED_PREFIX }], { limit: count })) {
    head.push(row);
  }
  if (head.length < count) return head;
  const points = [
    Buffer.alloc(0),
    ...(await store.sampleKeys(SAMPLE_POINTS)).filter((key) => key.compare(RESERVED_PREFIX) < 0),
  ]
    .sort(Buffer.compare)
    .filter((key, i, all) => i === 0 || !key.equals(all[i - 1]!));
  const perRun = Math.ceil(count / points.length);
  const limit = pLimit(4);
  const runs = await Promise.all(
    points.map((start, i) =>
      limit(async () => {
        const rows = [];
        const end = points[i + 1] ?? RESERVED_PREFIX;
        for await (const row of store.read([{ start, end }], { limit: perRun })) rows.push(row);
        return rows;
      }),
    ),
  );
  return runs.flat().slice(0, count);
}

function percent(share: number): string {
  return `${(share * 100).toFixed(share < 0.001 && share > 0 ? 3 : 1)} %`;
}
