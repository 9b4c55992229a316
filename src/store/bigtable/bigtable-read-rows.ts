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
import type { KeyRange, StoreRow } from "../store.js";
import { RETRYABLE_CODES } from "./mutate-rows.js";
import { ReadRowsDecoder, type ReadRowsResponse } from "./read-rows-decoder.js";
import { decodeReadRowsResponse } from "./read-rows-wire.js";

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

/** A ReadRows server stream as gRPC returns it: a Node Readable of responses that can be cancelled. */
export interface ReadRowsCall {
  cancel(): void;
  on(event: "data", listener: (response: ReadRowsResponse) => void): unknown;
  on(event: "end", listener: () => void): unknown;
  on(event: "error", listener: (error: Error) => void): unknown;
  removeListener(event: "data" | "end", listener: (...args: never[]) => void): unknown;
  pause(): unknown;
  resume(): unknown;
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
  /** Give each row its cells' versions. */
  cellTimestamps?: boolean | undefined;
  signal?: AbortSignal | undefined;
  /** The error a failed read ends with (an abort ends with the signal's reason). */
  failure: (error: unknown) => Error;
  /** The wait before the retry after `failures` failed calls in a row (default: the official client's). */
  backoffMs?: (failures: number) => number;
}

/**
 * Rows decoded and not yet taken past which the call is paused (gRPC's flow control then holds the
 * service back), so a slow reader of a long scan never buffers the table; it resumes at half.
 */
const BUFFERED_ROWS = 1024;

/** Rows of `request`, with up to `retries` resumptions of a call broken by a retryable status. */
export function readRows(
  start: StartReadRows,
  request: ReadRowsRequest,
  options: ReadRowsOptions,
): AsyncIterableIterator<StoreRow> {
  return new ReadRowsStream(start, request, options);
}

/** Why a wait before a retry stops (nobody sees it): made once, where abort() builds a DOMException each time. */
const READ_ENDED = new Error("the read ended");

type Waiter = { resolve: (result: IteratorResult<StoreRow>) => void; reject: (error: unknown) => void };

const DONE: IteratorResult<StoreRow> = { value: undefined, done: true };

/**
 * The rows of one read, taken from its calls' data events as they arrive: a row already received
 * is handed over without a round of stream and generator promises per response, which on a
 * scatter-gather read of small pages cost as much as the rows' own decoding. The first call starts
 * when the first row is asked for, as a generator's would.
 */
class ReadRowsStream implements AsyncIterableIterator<StoreRow> {
  private readonly decoder: ReadRowsDecoder;
  /** Rows received; those before `taken` are handed out (dropped once they are many). */
  private rows: StoreRow[] = [];
  private taken = 0;
  /** Readers waiting for a row, in the order they asked. */
  private waiters: Waiter[] = [];
  private started = false;
  private call: ReadRowsCall | undefined;
  private paused = false;
  /** Rows received so far, over every call: what is still owed of the limit. */
  private received = 0;
  /** Failed calls in a row without a row in between. */
  private failures = 0;
  /** Set once no row will be added: the read's end, or the error it fails with (told once). */
  private outcome: { error?: unknown } | undefined;
  /** Ends the wait before a retry when the read ends first (made only for a retry: most reads have none). */
  private backoff: AbortController | undefined;
  /** Listens on the signal only: `fail` ends an aborted read with the signal's reason. */
  private readonly onAbort = () => this.fail(this.options.signal?.reason);

  constructor(
    private readonly start: StartReadRows,
    private readonly request: ReadRowsRequest,
    private readonly options: ReadRowsOptions,
  ) {
    this.decoder = new ReadRowsDecoder(options.family, options.cellTimestamps === true);
  }

  [Symbol.asyncIterator](): AsyncIterableIterator<StoreRow> {
    return this;
  }

  next(): Promise<IteratorResult<StoreRow>> {
    const { signal } = this.options;
    // Once aborted, a read not yet over hands out nothing more, not even rows already received.
    const over = this.outcome !== undefined && this.outcome.error === undefined && this.buffered === 0;
    if (signal?.aborted && !over) {
      this.settle({ error: signal.reason });
      this.outcome = { error: signal.reason };
      this.rows = [];
      this.taken = 0;
      return this.tellOutcome();
    }
    if (this.buffered > 0) return Promise.resolve(this.take());
    if (this.outcome !== undefined) return this.tellOutcome();
    if (!this.started) {
      this.started = true;
      signal?.addEventListener("abort", this.onAbort, { once: true });
      this.attempt(this.request);
      // A call that cannot start has failed the read already.
      if (this.outcome !== undefined) return this.tellOutcome();
    }
    return new Promise((resolve, reject) => {
      this.waiters.push({ resolve, reject });
    });
  }

  /** The reader stopped early: the call is cancelled. */
  async return(): Promise<IteratorResult<StoreRow>> {
    this.settle({});
    this.rows = [];
    this.taken = 0;
    return DONE;
  }

  private get buffered(): number {
    return this.rows.length - this.taken;
  }

  /** The read's end, or its error the first time it is asked for (then its end, as a generator's). */
  private tellOutcome(): Promise<IteratorResult<StoreRow>> {
    const error = this.outcome?.error;
    if (error === undefined) return Promise.resolve(DONE);
    this.outcome = {};
    return Promise.reject(error);
  }

  private take(): IteratorResult<StoreRow> {
    const row = this.rows[this.taken++]!;
    if (this.taken === this.rows.length) {
      this.rows = [];
      this.taken = 0;
    } else if (this.taken >= BUFFERED_ROWS) {
      // A reader that keeps pace without ever emptying the buffer must not keep every row alive.
      this.rows = this.rows.slice(this.taken);
      this.taken = 0;
    }
    if (this.paused && this.buffered <= BUFFERED_ROWS / 2) {
      this.paused = false;
      this.call?.resume();
    }
    return { value: row, done: false };
  }

  /** Starts a call for what is still owed (or ends the read when nothing is). */
  private attempt(request: ReadRowsRequest | undefined): void {
    if (request === undefined) {
      this.settle({});
      return;
    }
    let call: ReadRowsCall | Promise<ReadRowsCall>;
    try {
      call = this.start(request);
    } catch (error) {
      // A call the client cannot start (it was closed) fails the read like a failed call.
      this.settle({ error: this.options.failure(error) });
      return;
    }
    if (call instanceof Promise) {
      call.then(
        (started) => this.listen(started),
        (error: unknown) => this.settle({ error: this.options.failure(error) }),
      );
    } else this.listen(call);
  }

  /** Listens to a call just started (at once: gRPC may report a status on the next tick). */
  private listen(call: ReadRowsCall): void {
    // A cancelled call reports CANCELLED after its reader has gone: errors stay listened to.
    call.on("error", (error) => {
      if (this.call === call) this.broken(error);
    });
    if (this.outcome !== undefined) {
      call.cancel();
      return;
    }
    this.call = call;
    this.paused = false;
    call.on("data", this.onData);
    call.on("end", this.onEnd);
  }

  private readonly onData = (response: ReadRowsResponse) => {
    try {
      this.add(this.decoder.decode(response));
    } catch (error) {
      this.fail(error);
    }
  };

  private readonly onEnd = () => {
    try {
      this.decoder.finish();
      this.detach();
      this.settle({});
    } catch (error) {
      this.fail(error);
    }
  };

  private add(rows: StoreRow[]): void {
    if (rows.length === 0) return;
    this.received += rows.length;
    this.failures = 0;
    if (this.buffered === 0) {
      this.rows = rows;
      this.taken = 0;
    } else for (const row of rows) this.rows.push(row);
    while (this.buffered > 0) {
      const waiter = this.waiters.shift();
      if (waiter === undefined) break;
      waiter.resolve(this.take());
    }
    if (this.buffered >= BUFFERED_ROWS && !this.paused) {
      this.paused = true;
      this.call?.pause();
    }
  }

  /** The call failed: resumed after a backoff if retryable and retries are left, else the read fails. */
  private broken(error: unknown): void {
    if (!isRetryable(error) || this.failures >= this.options.retries) {
      this.fail(error);
      return;
    }
    this.failures++;
    this.detach();
    this.decoder.abandonRow();
    this.backoff = new AbortController();
    sleep((this.options.backoffMs ?? backoffMs)(this.failures), undefined, {
      signal: this.backoff.signal,
    }).then(
      () => {
        if (this.outcome !== undefined) return;
        const remaining =
          this.request.rowsLimit === undefined ? undefined : this.request.rowsLimit - this.received;
        this.attempt(resumeRequest(this.request, this.decoder.lastKey, remaining));
      },
      // The read ended during the wait.
      () => {},
    );
  }

  /** Fails the read: with the signal's reason once aborted, else through `failure`. */
  private fail(error: unknown): void {
    const { signal } = this.options;
    this.settle({ error: signal?.aborted ? signal.reason : this.options.failure(error) });
  }

  /** No row will be added: the call (if any) is cancelled and waiting readers answered. */
  private settle(outcome: { error?: unknown }): void {
    if (this.outcome !== undefined) return;
    this.outcome = outcome;
    this.options.signal?.removeEventListener("abort", this.onAbort);
    this.backoff?.abort(READ_ENDED);
    this.detach()?.cancel();
    const waiters = this.waiters;
    this.waiters = [];
    // Waiters exist only while nothing is buffered: they share the outcome.
    for (const [i, waiter] of waiters.entries()) {
      if (outcome.error === undefined || i > 0) waiter.resolve(DONE);
      else waiter.reject(outcome.error);
    }
    if (waiters.length > 0 && outcome.error !== undefined) this.outcome = {};
  }

  /** Stops listening to the current call's rows; returns it. */
  private detach(): ReadRowsCall | undefined {
    const call = this.call;
    this.call = undefined;
    call?.removeListener("data", this.onData);
    call?.removeListener("end", this.onEnd);
    return call;
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
    return stub;
  });
  // Caught here, thrown by the first call: opening a store makes no call.
  ready.catch(() => {});
  return (request) => {
    const call = (grpc: GrpcStub) => {
      // gRPC captures the caller's stack on every call (`new Error()`), only to append it to a
      // failed call's error; ours fail through the store's own error. With async frames the capture
      // costs ~6 µs a call, 16 calls per scatter-gather read: off for this synchronous call only.
      const stackTraceLimit = Error.stackTraceLimit;
      Error.stackTraceLimit = 0;
      try {
        return grpc.makeServerStreamRequest(
          grpc.readRows.path,
          grpc.readRows.requestSerialize,
          decodeReadRowsResponse,
          request,
          metadataFor(request),
        );
      } finally {
        Error.stackTraceLimit = stackTraceLimit;
      }
    };
    return stub === undefined ? ready.then(call) : call(stub);
  };
}
