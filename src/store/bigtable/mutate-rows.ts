/**
 * Bigtable's MutateRows done carefully: a batch is split into requests well under the
 * 100,000-mutation limit (counting cells, not rows), a few requests run at once, entries that
 * fail with a retryable status are re-sent with exponential backoff and full jitter, and every
 * entry that still fails comes back by index with its reason — none is dropped. With batch write
 * flow control announced, the server's pace signals of every request come back too.
 */
import { setTimeout as sleep } from "node:timers/promises";
import type { FailedMutation, FlowControlSignal, StoreMutation, StoreWriteResult } from "../store.js";

/** One MutateRows entry in the proto's shape; `mutations.length` is its cost. */
export interface MutateEntry {
  rowKey: Buffer;
  mutations: object[];
}

export interface EntryStatus {
  code: number;
  message: string;
}

/**
 * Sends one MutateRows request. `statuses[i]` answers `entries[i]`; it is undefined when the
 * RPC broke before the server answered for that entry, in which case `error` says why. A sender
 * that announced batch write flow control returns `flowControl`: one signal per response.
 */
export type SendMutateRows = (entries: readonly MutateEntry[]) => Promise<{
  statuses: readonly (EntryStatus | undefined)[];
  error?: { code?: number; message: string };
  flowControl?: FlowControlSignal[];
}>;

/**
 * The `bigtable-features` header value that announces batch write flow control: a FeatureFlags
 * message (`google/bigtable/v2/feature_flags.proto`) with `mutate_rows_rate_limit` (field 3) and
 * `mutate_rows_rate_limit2` (field 5) true, base64url-encoded with padding. Google's Java client
 * sets both flags when the feature is on (EnhancedBigtableStubSettings.Builder.build).
 */
export const FLOW_CONTROL_FEATURES = Buffer.from([3 << 3, 1, 5 << 3, 1])
  .toString("base64")
  .replaceAll("+", "-")
  .replaceAll("/", "_");

/** A decoded MutateRowsResponse's `rate_limit_info` (a Duration's seconds arrive as text or a Long). */
export interface DecodedRateLimitInfo {
  period?: { seconds?: number | string | { toString(): string } | null; nanos?: number | null } | null;
  factor?: number | null;
}

/** One response's signal: its RateLimitInfo as sent (the writer judges it), or `none`. */
export function flowControlSignalOf(info: DecodedRateLimitInfo | null | undefined): FlowControlSignal {
  if (info === null || info === undefined) return { type: "none" };
  const seconds = Number(String(info.period?.seconds ?? 0));
  const nanos = info.period?.nanos ?? 0;
  return { type: "rate-limit", factor: info.factor ?? 0, periodMs: seconds * 1000 + nanos / 1e6 };
}

/** Failed calls that mean the cluster is overloaded (Java's RateLimitingServerStreamingCallable). */
const OVERLOADED_CODES: ReadonlySet<number> = new Set([4, 8, 14]);

export interface MutateRowsLimits {
  /** Mutations (cells + row deletes) per request; Bigtable's hard limit is 100,000. */
  maxMutationsPerRequest: number;
  /** Approximate payload bytes per request (Bigtable rejects requests over 256 MB). */
  maxBytesPerRequest: number;
  /** Requests in flight at once. */
  maxInFlight: number;
  /** Attempts per entry, the first included. */
  maxAttempts: number;
  /** First backoff ceiling; doubles each retry up to `maxDelayMs`, each delay drawn in [0, ceiling). */
  baseDelayMs: number;
  maxDelayMs: number;
}

export const DEFAULT_MUTATE_ROWS_LIMITS: MutateRowsLimits = {
  maxMutationsPerRequest: 20_000,
  maxBytesPerRequest: 32 * 1024 * 1024,
  maxInFlight: 4,
  maxAttempts: 5,
  baseDelayMs: 20,
  maxDelayMs: 2_000,
};

/** Throws a clear error unless every limit is a positive integer (a zero would send nothing). */
export function checkMutateRowsLimits(limits: MutateRowsLimits): void {
  for (const [name, value] of Object.entries(limits)) {
    if (!Number.isSafeInteger(value) || value <= 0) {
      throw new RangeError(`limits.${name} is ${value}; allowed: a positive integer`);
    }
  }
}

/** gRPC codes worth retrying: DEADLINE_EXCEEDED, RESOURCE_EXHAUSTED, ABORTED, UNAVAILABLE. */
export const RETRYABLE_CODES: ReadonlySet<number> = new Set([4, 8, 10, 14]);

/** The first index of the entry's key in the batch, the entry and its request bytes. */
interface Planned {
  index: number;
  entry: MutateEntry;
  bytes: number;
}

export async function mutateRows(
  mutations: readonly StoreMutation[],
  toEntry: (mutation: StoreMutation) => MutateEntry,
  send: SendMutateRows,
  limits: MutateRowsLimits = DEFAULT_MUTATE_ROWS_LIMITS,
): Promise<StoreWriteResult> {
  // Bigtable may apply the entries of one request in any order, so the mutations of a key are
  // sent as one entry (its mutations apply in order, atomically); they share its outcome.
  const indexesOfKey = new Map<string, number[]>();
  /** Per mutation, the first index of its key: the entry that carries it. */
  const entryIndexes: number[] = [];
  for (const [index, mutation] of mutations.entries()) {
    const id = mutation.key.toString("latin1");
    const indexes = indexesOfKey.get(id);
    if (indexes === undefined) indexesOfKey.set(id, [index]);
    else indexes.push(index);
    entryIndexes.push(indexes?.[0] ?? index);
  }
  const planned: Planned[] = [...indexesOfKey.values()].map((indexes) => {
    const entries = indexes.map((index) => toEntry(mutations[index]!));
    const entry =
      entries.length === 1
        ? entries[0]!
        : { rowKey: entries[0]!.rowKey, mutations: entries.flatMap((e) => e.mutations) };
    return { index: indexes[0]!, entry, bytes: entryBytes(entry) };
  });

  const reasons = new Map<number, string>();
  const chunks = chunk(planned, limits);
  let flowControl: FlowControlSignal[] | undefined;
  const observed: SendMutateRows = async (entries) => {
    const answer = await send(entries);
    if (answer.flowControl !== undefined) {
      flowControl ??= [];
      flowControl.push(...answer.flowControl);
      const code = answer.error?.code;
      if (code !== undefined && OVERLOADED_CODES.has(code)) flowControl.push({ type: "overloaded", code });
    }
    return answer;
  };
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < chunks.length) {
      const failures = await sendWithRetries(chunks[next++]!, observed, limits);
      for (const [index, reason] of failures) reasons.set(index, reason);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limits.maxInFlight, chunks.length) }, worker));

  const failed: FailedMutation[] = [];
  mutations.forEach((mutation, index) => {
    const reason = reasons.get(entryIndexes[index]!);
    if (reason !== undefined) failed.push({ index, key: mutation.key, reason });
  });
  return flowControl === undefined ? { failed } : { failed, flowControl };
}

function chunk(planned: readonly Planned[], limits: MutateRowsLimits): Planned[][] {
  const chunks: Planned[][] = [];
  let current: Planned[] = [];
  let mutationCount = 0;
  let bytes = 0;
  for (const item of planned) {
    const cost = item.entry.mutations.length;
    if (cost > limits.maxMutationsPerRequest) {
      throw new RangeError(
        `mutations[${item.index}] (with the batch's other mutations of its row) has ${cost} mutations; at most ${limits.maxMutationsPerRequest} fit one request`,
      );
    }
    if (
      current.length > 0 &&
      (mutationCount + cost > limits.maxMutationsPerRequest || bytes + item.bytes > limits.maxBytesPerRequest)
    ) {
      chunks.push(current);
      current = [];
      mutationCount = 0;
      bytes = 0;
    }
    current.push(item);
    mutationCount += cost;
    bytes += item.bytes;
  }
  if (current.length > 0) chunks.push(current);
  return chunks;
}

/** Returns the reason for every entry of the chunk that was not applied. */
async function sendWithRetries(
  chunk: readonly Planned[],
  send: SendMutateRows,
  limits: MutateRowsLimits,
): Promise<Map<number, string>> {
  const failures = new Map<number, string>();
  let pending = chunk;
  for (let attempt = 1; pending.length > 0; attempt++) {
    const { statuses, error }: Awaited<ReturnType<SendMutateRows>> = await send(
      pending.map((item) => item.entry),
    ).catch((thrown: unknown) => ({
      statuses: [],
      error: { message: thrown instanceof Error ? thrown.message : String(thrown) },
    }));
    const retry: Planned[] = [];
    pending.forEach((item, i) => {
      const status = statuses[i] ?? {
        code: error?.code ?? 2,
        message: error?.message ?? "MutateRows ended without a status for this row",
      };
      if (status.code === 0) return;
      const reason = `${codeName(status.code)}: ${status.message}`;
      if (RETRYABLE_CODES.has(status.code) && attempt < limits.maxAttempts) retry.push(item);
      else failures.set(item.index, attempt > 1 ? `${reason} (after ${attempt} attempts)` : reason);
    });
    pending = retry;
    if (pending.length > 0) await sleep(backoff(attempt, limits));
  }
  return failures;
}

function backoff(attempt: number, limits: MutateRowsLimits): number {
  return Math.random() * Math.min(limits.maxDelayMs, limits.baseDelayMs * 2 ** (attempt - 1));
}

function entryBytes(entry: MutateEntry): number {
  let bytes = entry.rowKey.length;
  for (const mutation of entry.mutations) {
    const cell = (mutation as { setCell?: { columnQualifier: Buffer; value: Buffer } }).setCell;
    bytes += 16 + (cell === undefined ? 0 : cell.columnQualifier.length + cell.value.length);
  }
  return bytes;
}

const CODE_NAMES = [
  "OK",
  "CANCELLED",
  "UNKNOWN",
  "INVALID_ARGUMENT",
  "DEADLINE_EXCEEDED",
  "NOT_FOUND",
  "ALREADY_EXISTS",
  "PERMISSION_DENIED",
  "RESOURCE_EXHAUSTED",
  "FAILED_PRECONDITION",
  "ABORTED",
  "OUT_OF_RANGE",
  "UNIMPLEMENTED",
  "INTERNAL",
  "UNAVAILABLE",
  "DATA_LOSS",
  "UNAUTHENTICATED",
];

export function codeName(code: number): string {
  return CODE_NAMES[code] ?? `code ${code}`;
}
