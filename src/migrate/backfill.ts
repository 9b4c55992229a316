/**
 * Re-keying a table (the fleet incident: "Bigtable keys are immutable; you are writing a new table and
 * backfilling"): every source row is decoded with the old schema, encoded with the new one and
 * written to the target in batches, at a bounded rate, checkpointing after each written batch.
 */
import type { KeySchema } from "../keys/types.js";
import type { KeyRange, Store, StoreMutation, StoreRow } from "../store/store.js";
import { SaltedTable } from "../table/salted-table.js";
import { guardRecordedSchema, isReserved, RESERVED_PREFIX } from "../table/schema-guard.js";
import { type BackfillCheckpoint, type CheckpointStore, checkpointFileStore } from "./checkpoint.js";
import { ALL_DATA, readDataPage } from "./data-rows.js";
import { MigrateOptionError } from "./migrate-option-error.js";
import type { Shard } from "./shards.js";
import { followRateLimit } from "./write-flow-control.js";

export interface BackfillOptions {
  source: Store;
  sourceSchema: KeySchema;
  /** Created with `targetSchema` when new; refused when it records another schema. */
  target: Store;
  targetSchema: KeySchema;
  /** Resume from this file when it exists, and record progress in it after every batch. */
  checkpointFile?: string;
  /**
   * Where progress lives instead of a file (an indexed job keeps it in the target table, fenced by
   * the task's lease: see job/): loaded once, saved after every written batch.
   */
  checkpointStore?: CheckpointStore;
  /**
   * Called before each batch is written; throws to stop the run before it writes (a job's task
   * that lost its shard's lease writes nothing more to it).
   */
  beforeWrite?: () => Promise<void>;
  /** Rows read and written per batch (and per checkpoint). Default 1000. */
  batchSize?: number;
  /** Upper bound on rows per second; batches shrink so one is written at least every second. */
  rowsPerSecond?: number;
  /** Record rows the schemas cannot re-key and go on (default: stop at the first, naming it). */
  skipBadRows?: boolean;
  /** Estimate the fraction done from this many sampled source keys (default 1000; 0: no estimate). */
  estimateSamples?: number;
  /**
   * Copy only this shard's source key range (see shards.ts): N processes with the same shard plan
   * and their own checkpoint files copy the table together.
   */
  shard?: Shard & { range: KeyRange & { end: Buffer } };
  /**
   * Each batch survives a power loss before its checkpoint is written (see `WriteOptions.durable`).
   * Default: with a checkpoint file, yes — a checkpoint must never point past rows a crash lost.
   */
  durable?: boolean;
  onProgress?: (progress: BackfillProgress) => void;
  signal?: AbortSignal;
}

export interface BackfillProgress {
  rowsRead: number;
  rowsWritten: number;
  rowsSkipped: number;
  /** Rows this run read (the rest came from the checkpoint). */
  rowsReadThisRun: number;
  /**
   * Present while Bigtable's batch write flow control holds the writes to a rate (RateLimitInfo
   * on MutateRows responses): that rate, rows/s.
   */
  serverRowsPerSecond?: number;
  /** Share of the source's key space done, from sampled keys; undefined when unknown. */
  fractionDone: number | undefined;
  resumedFrom: Buffer | undefined;
}

export interface BackfillResult extends BackfillProgress {
  skipped: { key: string; reason: string }[];
  seconds: number;
}

/** The target could not take some rows; the checkpoint stays before their batch, so a rerun retries it. */
export class BackfillWriteError extends Error {
  override readonly name = "BackfillWriteError";
  constructor(
    readonly target: string,
    readonly failed: { sourceKey: string; targetKey: string; reason: string }[],
  ) {
    super(
      `${target}: ${failed.length} rows of the batch were not written (a rerun resumes before this batch); first: ` +
        `source key ${failed[0]?.sourceKey} → ${failed[0]?.targetKey}: ${failed[0]?.reason}`,
    );
  }
}

/** A source row the target schema cannot key (`sourceKey` in hex, and the `reason`); `skipBadRows` records such rows instead. */
export class BackfillRowError extends Error {
  override readonly name = "BackfillRowError";
  constructor(
    readonly sourceKey: string,
    readonly reason: string,
  ) {
    super(
      `source row ${sourceKey} cannot be re-keyed: ${reason} (rerun with skipBadRows / --skip-bad-rows to record such rows and go on)`,
    );
  }
}

const MAX_LISTED_SKIPS = 100;

export async function backfillTable(options: BackfillOptions): Promise<BackfillResult> {
  const { source, sourceSchema, target, targetSchema } = options;
  const started = performance.now();
  await checkTables(options);
  const range: KeyRange = options.shard?.range ?? ALL_DATA;
  const checkpoints =
    options.checkpointStore ??
    (options.checkpointFile === undefined ? undefined : checkpointFileStore(options.checkpointFile));
  const { state, resumedFrom } = await startingCheckpoint(options, checkpoints);
  const samples = state.complete
    ? []
    : await sampleForEstimate(source, options.estimateSamples ?? 1000, range);
  const rate = options.rowsPerSecond;
  const batchSize = Math.min(options.batchSize ?? 1000, rate === undefined ? Infinity : Math.ceil(rate));
  let rowsReadThisRun = 0;
  let after: Buffer | undefined = resumedFrom;
  // Writes announce Bigtable's batch write flow control and slow down when the server asks;
  // never faster than --rate.
  const flow = followRateLimit(target, rate === undefined ? {} : { maxRowsPerSecond: rate });

  const progress = (): BackfillProgress => ({
    rowsRead: state.rowsRead,
    rowsWritten: state.rowsWritten,
    rowsSkipped: state.rowsSkipped,
    rowsReadThisRun,
    fractionDone: state.complete ? 1 : after && fractionOfKeySpace(samples, after),
    resumedFrom,
    ...(flow.limited ? { serverRowsPerSecond: Math.round(flow.rowsPerSecond) } : {}),
  });

  // The next page is read while this one is converted and written.
  let nextPage = state.complete ? undefined : prefetch(source, after, batchSize, range);
  while (nextPage) {
    options.signal?.throwIfAborted();
    const page = await nextPage;
    const last = page.at(-1);
    nextPage =
      last === undefined || page.length < batchSize
        ? undefined
        : prefetch(source, last.key, batchSize, range);
    const { mutations, sourceKeys } = rekeyPage(page, sourceSchema, targetSchema, state, options.skipBadRows);
    await options.beforeWrite?.();
    await writePage(flow.store, mutations, sourceKeys, options.durable ?? checkpoints !== undefined);
    rowsReadThisRun += page.length;
    state.rowsRead += page.length;
    state.rowsWritten += mutations.length;
    state.complete = page.length < batchSize;
    if (page.length > 0) {
      const last = page[page.length - 1]!.key;
      after = last;
      state.lastKey = last.toString("hex");
    }
    state.updatedAt = new Date().toISOString();
    await checkpoints?.save(state);
    options.onProgress?.(progress());
    if (!state.complete) await flow.pace(page.length, options.signal);
  }
  return { ...progress(), skipped: state.skipped, seconds: (performance.now() - started) / 1000 };
}

/** Checks the options and both tables' schemas; creates the target with its schema when new. */
export async function checkTables(
  options: Pick<
    BackfillOptions,
    "source" | "sourceSchema" | "target" | "targetSchema" | "batchSize" | "rowsPerSecond"
  >,
): Promise<void> {
  const { source, sourceSchema, target, targetSchema } = options;
  checkPositive("batchSize", options.batchSize, Number.isSafeInteger);
  checkPositive("rowsPerSecond", options.rowsPerSecond, Number.isFinite);
  checkSameFields(sourceSchema, targetSchema);
  if (source.name === target.name) throw new Error(`source and target are the same table (${source.name})`);
  await guardRecordedSchema(source, sourceSchema);
  await SaltedTable.open(target, targetSchema, { create: true });
}

/** The checkpoint this run resumes from (when its file belongs to this migration), else a fresh one. */
async function startingCheckpoint(
  options: BackfillOptions,
  checkpoints: CheckpointStore | undefined,
): Promise<{ state: BackfillCheckpoint; resumedFrom: Buffer | undefined }> {
  const { source, sourceSchema, target, targetSchema, shard } = options;
  const identity = {
    version: 1 as const,
    source: source.name,
    target: target.name,
    sourceFingerprint: sourceSchema.fingerprint,
    targetFingerprint: targetSchema.fingerprint,
    ...(shard
      ? {
          shard: {
            index: shard.index,
            count: shard.count,
            start: shard.range.start.toString("hex"),
            end: shard.range.end.toString("hex"),
          },
        }
      : {}),
  };
  const saved = await checkpoints?.load();
  if (saved && checkpoints) checkResumable(saved, identity, checkpoints.name);
  const state: BackfillCheckpoint = saved ?? {
    ...identity,
    lastKey: null,
    rowsRead: 0,
    rowsWritten: 0,
    rowsSkipped: 0,
    skipped: [],
    complete: false,
    updatedAt: new Date().toISOString(),
  };
  return { state, resumedFrom: saved?.lastKey ? Buffer.from(saved.lastKey, "hex") : undefined };
}

/** The page's rows under the target schema; a row that cannot be re-keyed stops the run, or (`skipBadRows`) is recorded in `state`. */
function rekeyPage(
  page: StoreRow[],
  sourceSchema: KeySchema,
  targetSchema: KeySchema,
  state: BackfillCheckpoint,
  skipBadRows: boolean | undefined,
): { mutations: StoreMutation[]; sourceKeys: Buffer[] } {
  const mutations: StoreMutation[] = [];
  const sourceKeys: Buffer[] = [];
  for (const row of page) {
    const converted = rekey(row, sourceSchema, targetSchema);
    if (typeof converted === "string") {
      if (!skipBadRows) throw new BackfillRowError(row.key.toString("hex"), converted);
      state.rowsSkipped++;
      if (state.skipped.length < MAX_LISTED_SKIPS)
        state.skipped.push({ key: row.key.toString("hex"), reason: converted });
      continue;
    }
    mutations.push(converted);
    sourceKeys.push(row.key);
  }
  return { mutations, sourceKeys };
}

/** Writes one re-keyed page; rows the target refuses fail the batch, named by their source keys. */
async function writePage(
  target: Store,
  mutations: StoreMutation[],
  sourceKeys: Buffer[],
  durable: boolean,
): Promise<void> {
  if (mutations.length === 0) return;
  const { failed } = await target.write(mutations, { durable });
  if (failed.length > 0) {
    throw new BackfillWriteError(
      target.name,
      failed.map((f) => ({
        sourceKey: sourceKeys[f.index]!.toString("hex"),
        targetKey: f.key.toString("hex"),
        reason: f.reason,
      })),
    );
  }
}

/** Starts reading a page; a failure surfaces when it is awaited, not as an unhandled rejection. */
function prefetch(
  source: Store,
  after: Buffer | undefined,
  limit: number,
  range: KeyRange,
): Promise<StoreRow[]> {
  const page = readDataPage(source, after, limit, range, { cellTimestamps: true });
  page.catch(() => {});
  return page;
}

/** The row under the target schema, or why it cannot be re-keyed. */
function rekey(row: StoreRow, from: KeySchema, to: KeySchema): StoreMutation | string {
  try {
    const key = to.encode(from.decode(row.key).values);
    if (isReserved(key))
      return "its new key starts with eight 0xFF bytes, reserved for keyspread's schema row";
    // The source's versions (Bigtable): a newer write to the target wins whichever lands last.
    return row.timestamps === undefined
      ? { type: "put", key, cells: row.cells }
      : { type: "put", key, cells: row.cells, timestamps: row.timestamps };
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

function checkPositive(name: string, value: number | undefined, isNumber: (n: number) => boolean): void {
  if (value !== undefined && !(isNumber(value) && value > 0)) {
    throw new MigrateOptionError(
      name,
      value,
      `${isNumber === Number.isSafeInteger ? "an integer" : "a number"} > 0`,
    );
  }
}

/** The source and target schemas do not carry the same fields. */
export class SchemaFieldsError extends Error {
  override readonly name = "SchemaFieldsError";
  readonly from: string;
  readonly to: string;

  constructor(
    from: KeySchema,
    to: KeySchema,
    readonly onlyInSource: readonly string[],
    readonly onlyInTarget: readonly string[],
  ) {
    super(
      `schemas "${from.spec.name}" → "${to.spec.name}" must have the same fields; ` +
        [
          onlyInSource.length > 0 ? `only in the source: ${onlyInSource.join(", ")}` : "",
          onlyInTarget.length > 0 ? `only in the target: ${onlyInTarget.join(", ")}` : "",
        ]
          .filter(Boolean)
          .join("; "),
    );
    this.from = from.spec.name;
    this.to = to.spec.name;
  }
}

/** Both schemas must carry the same fields: a dropped field would merge rows, a new one has no value. */
export function checkSameFields(from: KeySchema, to: KeySchema): void {
  const fromNames = new Set(from.fields.map((f) => f.name));
  const toNames = new Set(to.fields.map((f) => f.name));
  const dropped = [...fromNames].filter((name) => !toNames.has(name));
  const added = [...toNames].filter((name) => !fromNames.has(name));
  if (dropped.length > 0 || added.length > 0) throw new SchemaFieldsError(from, to, dropped, added);
}

type MigrationIdentity = Pick<
  BackfillCheckpoint,
  "source" | "target" | "sourceFingerprint" | "targetFingerprint" | "shard"
>;

/** A checkpoint written by another migration (another table, schema or shard) than this run. */
export class CheckpointMismatchError extends Error {
  override readonly name = "CheckpointMismatchError";
  constructor(
    readonly checkpoint: string,
    readonly field: "source" | "target" | "sourceFingerprint" | "targetFingerprint" | "shard",
    /** The checkpoint's value, and this run's (a shard as its JSON, "none" when unsharded). */
    readonly recorded: string,
    readonly wanted: string,
  ) {
    super(
      `checkpoint ${checkpoint} belongs to another migration: its ${field} is ${recorded}, this run's is ${wanted}; ` +
        "use another --checkpoint file, or delete this one to start over",
    );
  }
}

function checkResumable(saved: BackfillCheckpoint, identity: MigrationIdentity, where: string): void {
  for (const field of ["source", "target", "sourceFingerprint", "targetFingerprint", "shard"] as const) {
    const shown = (value: unknown) => (typeof value === "string" ? value : (JSON.stringify(value) ?? "none"));
    const [was, now] = [shown(saved[field]), shown(identity[field])];
    if (was !== now) throw new CheckpointMismatchError(where, field, was, now);
  }
}

async function sampleForEstimate(store: Store, count: number, range: KeyRange): Promise<Buffer[]> {
  if (count === 0) return [];
  const keys = await store.sampleKeys(count);
  return keys
    .filter((key) => key.compare(range.start) >= 0 && key.compare(range.end ?? RESERVED_PREFIX) < 0)
    .sort(Buffer.compare);
}

/** Share of sampled keys at or before `key`: the sample is spread evenly by rows, so this estimates rows done. */
export function fractionOfKeySpace(sortedSamples: readonly Buffer[], key: Buffer): number | undefined {
  if (sortedSamples.length === 0) return undefined;
  let low = 0;
  let high = sortedSamples.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if (sortedSamples[mid]!.compare(key) <= 0) low = mid + 1;
    else high = mid;
  }
  return low / sortedSamples.length;
}
