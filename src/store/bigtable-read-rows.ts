/**
 * One store read on Bigtable: a ReadRows call made straight on the gRPC stub of the official
 * package's generated data client (`v2.BigtableClient`, the one its `Bigtable` object uses, so
 * reads share its channels, credentials and channel pool), the request encoded by the stub's own
 * serializer and the responses read from the wire by ours, then turned into rows by our chunk
 * decoder. The generated client's call layers (streams wrapping streams, a deep copy of each
 * request, an object conversion of each response) cost several times the gRPC call itself, and a
 * limit-bound scatter-gather read makes one call per bucket. Like the official read stream, a call
 * broken by a retryable status resumes just after the last row the service vouched for, with the
 * rows still owed, after the same backoff; rows are never repeated or skipped, and a failure past
 * the retries is thrown, never a silent short answer.
 */
import { setTimeout as sleep } from "node:timers/promises";
import type { Bigtable, v2 } from "@google-cloud/bigtable";
import { RETRYABLE_CODES } from "./mutate-rows.js";
import { ReadRowsDecoder, type ReadRowsResponse } from "./read-rows-decoder.js";
import { decodeReadRowsResponse } from "./read-rows-wire.js";
import type { KeyRange, StoreRow } from "./store.js";

interface RowRange {
  startKeyClosed?: Buffer;
  startKeyOpen?: Buffer;
  endKeyOpen?: Buffer;
}

export interface ReadRowsRequest {
  tableName: string;
  appProfileId?: string;
  rows: { rowKeys?: Buffer[]; rowRanges?: RowRange[] };
  /** Absent: no limit (the API reads 0 as none). */
  rowsLimit?: number;
  filter: object;
}

/** A ReadRows server stream as the generated client returns it. */
export interface ReadRowsCall extends AsyncIterable<ReadRowsResponse> {
  cancel(): void;
  on(event: "error", listener: (error: Error) => void): unknown;
}

/** Starts a call; the first may wait for the client's channel to be set up. */
export type StartReadRows = (request: ReadRowsRequest) => ReadRowsCall | Promise<ReadRowsCall>;

const INTERNAL = 13;

/**
 * Retryable as the official client judges a read: the statuses writes retry on (DEADLINE_EXCEEDED,
 * RESOURCE_EXHAUSTED, ABORTED, UNAVAILABLE), and an INTERNAL "RST_STREAM" (a reset connection).
 */
function isRetryable(error: unknown): boolean {
  const { code, message } = error as { code?: unknown; message?: unknown };
  if (typeof code !== "number") return false;
  return RETRYABLE_CODES.has(code) || (code === INTERNAL && /rst.stream/i.test(String(message)));
}

/** The official client's default backoff: 10 ms doubling per failure in a row, plus up to 100 ms of jitter, at most 60 s. */
const backoffMs = (failures: number) => Math.min(60_000, 10 * 2 ** failures + Math.random() * 100);

/**
 * Byte-level cell filter: this family only, newest version of each column only. The family is
 * matched by name as a column range over all its qualifiers, not by a regular expression: an exact
 * match with nothing to escape, and Google's emulator compiles a family regex for every cell.
 */
export const latestCellsOf = (family: string) => ({
  chain: { filters: [{ columnRangeFilter: { familyName: family } }, { cellsPerColumnLimitFilter: 1 }] },
});

/** `[start, end)` in the API's terms; an empty start or null end is left open. */
export function rowRange(range: KeyRange): RowRange {
  return {
    ...(range.start.length > 0 ? { startKeyClosed: range.start } : {}),
    ...(range.end === null ? {} : { endKeyOpen: range.end }),
  };
}

/**
 * The request for what is still owed after `lastKey` with `remaining` rows left, or undefined
 * when nothing is: an empty row set would read the whole table.
 */
export function resumeRequest(
  request: ReadRowsRequest,
  lastKey: Buffer | undefined,
  remaining: number | undefined,
): ReadRowsRequest | undefined {
  if (remaining !== undefined && remaining <= 0) return undefined;
  const limit = remaining === undefined ? {} : { rowsLimit: remaining };
  if (lastKey === undefined) return { ...request, ...limit };
  const rowKeys = (request.rows.rowKeys ?? []).filter((key) => Buffer.compare(key, lastKey) > 0);
  const rowRanges = (request.rows.rowRanges ?? []).flatMap((range): RowRange[] => {
    if (range.endKeyOpen !== undefined && Buffer.compare(range.endKeyOpen, lastKey) <= 0) return [];
    const start = range.startKeyClosed ?? range.startKeyOpen;
    if (start !== undefined && Buffer.compare(start, lastKey) > 0) return [range];
    return [
      { startKeyOpen: lastKey, ...(range.endKeyOpen === undefined ? {} : { endKeyOpen: range.endKeyOpen }) },
    ];
  });
  if (rowKeys.length === 0 && rowRanges.length === 0) return undefined;
  return { ...request, rows: { rowKeys, rowRanges }, ...limit };
}

export interface ReadRowsOptions {
  family: string;
  retries: number;
  signal?: AbortSignal | undefined;
  /** The error a failed read ends with (an abort ends with the signal's reason). */
  failure: (error: unknown) => Error;
}

/** Rows of `request`, with up to `retries` resumptions of a call broken by a retryable status. */
export async function* readRows(
  start: StartReadRows,
  request: ReadRowsRequest,
  options: ReadRowsOptions,
): AsyncGenerator<StoreRow> {
  const { signal } = options;
  const decoder = new ReadRowsDecoder(options.family);
  let delivered = 0;
  let failures = 0;
  let attempt: ReadRowsRequest | undefined = request;
  while (attempt !== undefined) {
    signal?.throwIfAborted();
    let call: ReadRowsCall;
    try {
      call = await start(attempt);
    } catch (error) {
      // A call the client cannot start (it was closed) fails the read like a failed call.
      throw options.failure(error);
    }
    // A cancelled call reports CANCELLED after its reader has gone.
    call.on("error", () => {});
    const cancel = () => call.cancel();
    signal?.addEventListener("abort", cancel, { once: true });
    let ended = false;
    try {
      for await (const response of call) {
        for (const row of decoder.decode(response)) {
          delivered++;
          failures = 0;
          yield row;
        }
      }
      ended = true;
      decoder.finish();
      return;
    } catch (error) {
      if (signal?.aborted) throw signal.reason;
      if (ended || !isRetryable(error) || failures >= options.retries) throw options.failure(error);
      failures++;
      decoder.abandonRow();
    } finally {
      signal?.removeEventListener("abort", cancel);
      if (!ended) call.cancel();
    }
    // Only an abort ends the wait early: the read then ends with the signal's reason.
    await sleep(backoffMs(failures), undefined, signal === undefined ? undefined : { signal }).catch(() => {
      throw signal?.reason;
    });
    const remaining = request.rowsLimit === undefined ? undefined : request.rowsLimit - delivered;
    attempt = resumeRequest(request, decoder.lastKey, remaining);
  }
}

interface GrpcMetadata {
  set(key: string, value: string): void;
  clone(): GrpcMetadata;
}

/** What a call needs of the data client: its gRPC stub (a `@grpc/grpc-js` Client) and that gRPC module. */
interface DataClientInternals {
  initialize(): Promise<unknown>;
  _gaxGrpc?: { grpc?: { Metadata?: new () => GrpcMetadata } };
  _defaults?: { readRows?: { otherArgs?: { headers?: Record<string, string> } } };
}

/** A gRPC method as `@grpc/grpc-js` defines it on a stub: its path and request serializer. */
interface GrpcMethod {
  path: string;
  requestSerialize(request: ReadRowsRequest): Buffer;
}

interface GrpcStub {
  readRows: GrpcMethod;
  makeServerStreamRequest(
    path: string,
    serialize: (request: ReadRowsRequest) => Buffer,
    deserialize: (bytes: Buffer) => ReadRowsResponse,
    request: ReadRowsRequest,
    metadata: GrpcMetadata,
  ): ReadRowsCall;
}

/**
 * ReadRows on the data client `client` uses for its own data calls (made as it makes it, on first
 * use): reads share its channels and credentials and close with it. `DataClient` is the
 * package's `v2.BigtableClient`, passed in by the caller that loaded the (optional) package.
 */
export function readRowsOn(client: Bigtable, DataClient: typeof v2.BigtableClient): StartReadRows {
  const api = client.api as Record<string, unknown>;
  api.BigtableClient ??= new DataClient(client.options.BigtableClient);
  const data = api.BigtableClient as DataClientInternals;
  const Metadata = data._gaxGrpc?.grpc?.Metadata;
  if (Metadata === undefined) {
    throw new Error("@google-cloud/bigtable's data client has no gRPC module; supported: 6.5 and 7.x");
  }
  // The headers the generated client sends: its version, and the routing parameters the service
  // routes a call by (table and app profile), as its readRows builds them.
  const clientHeader = data._defaults?.readRows?.otherArgs?.headers?.["x-goog-api-client"];
  // By table and app profile: built once each, not on every call of a scatter-gather read.
  const headers = new Map<string, GrpcMetadata>();
  const metadataFor = (request: ReadRowsRequest): GrpcMetadata => {
    const route =
      request.appProfileId === undefined
        ? request.tableName
        : `${request.tableName}\n${request.appProfileId}`;
    let metadata = headers.get(route);
    if (metadata === undefined) {
      const routing = new URLSearchParams({ table_name: request.tableName });
      if (request.appProfileId !== undefined) routing.set("app_profile_id", request.appProfileId);
      metadata = new Metadata();
      if (clientHeader !== undefined) metadata.set("x-goog-api-client", clientHeader);
      metadata.set("x-goog-request-params", routing.toString());
      headers.set(route, metadata);
    }
    // gRPC may add to a call's metadata (credentials): each call gets its own copy.
    return metadata.clone();
  };
  let stub: GrpcStub | undefined;
  const ready = data.initialize().then((created) => {
    stub = created as GrpcStub;
  });
  // Caught here, thrown by the first call: opening a store makes no call.
  ready.catch(() => {});
  return (request) => {
    const call = (grpc: GrpcStub) =>
      grpc.makeServerStreamRequest(
        grpc.readRows.path,
        grpc.readRows.requestSerialize,
        decodeReadRowsResponse,
        request,
        metadataFor(request),
      );
    return stub === undefined ? ready.then(() => call(stub!)) : call(stub);
  };
}
