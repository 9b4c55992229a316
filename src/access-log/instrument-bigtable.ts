/**
 * Access logs from apps that use `@google-cloud/bigtable`'s `Table` directly (most existing code):
 * `instrumentBigtableTable(table, { sink, sampleRate })` returns the same table with its reads and writes
 * observed — `insert`, `mutate`, `createReadStream`, `getRows`, and a row's `get` and `save`. Every
 * call is passed through unchanged and its results are returned unchanged; a sampled call leaves
 * access records (keys, bytes, rows, latency) in the sink, in the format `keyspread heatmap` and
 * `keyspread replay` read.
 */

import type { AccessRecord } from "./access-record.js";
import { type AccessLogSampling, sampler } from "./sink.js";

type KeyLike = string | Buffer | { value: string | Buffer };

const keyBytes = (key: KeyLike): Buffer =>
  Buffer.isBuffer(key) ? key : typeof key === "string" ? Buffer.from(key, "utf8") : keyBytes(key.value);

const toKey = (key: KeyLike | undefined): Buffer | undefined =>
  key === undefined ? undefined : keyBytes(key);

/** Bytes of a row's cells as the client returns them (`{family: {qualifier: [{value}]}}`), or of mutation data. */
function dataBytes(data: unknown): number {
  if (data === null || data === undefined) return 0;
  if (Buffer.isBuffer(data)) return data.length;
  if (typeof data === "string") return Buffer.byteLength(data);
  if (typeof data === "number") return 8;
  if (Array.isArray(data)) return data.reduce((sum: number, each) => sum + dataBytes(each), 0);
  if (typeof data !== "object") return 0;
  // A cell ({value, timestamp, labels}) counts its value; a family or a row, its names and contents.
  const { value } = data as { value?: unknown };
  if (typeof value === "string" || typeof value === "number" || Buffer.isBuffer(value))
    return dataBytes(value);
  return Object.entries(data).reduce(
    (sum, [name, each]) => sum + Buffer.byteLength(name) + dataBytes(each),
    0,
  );
}

interface ReadRequest {
  keys?: KeyLike[];
  ranges?: { start?: KeyLike; end?: KeyLike }[];
  start?: KeyLike;
  end?: KeyLike;
  prefix?: string;
  prefixes?: string[];
}

/** The ranges a read request names: one record each (a key read is a point read). */
function requestedRanges(
  options: ReadRequest | undefined,
): { key: Buffer; end?: Buffer | null; point: boolean }[] {
  if (!options) return [{ key: Buffer.alloc(0), end: null, point: false }];
  const ranges: { key: Buffer; end?: Buffer | null; point: boolean }[] = [];
  for (const key of options.keys ?? []) ranges.push({ key: keyBytes(key), point: true });
  for (const range of options.ranges ?? [])
    ranges.push({ key: toKey(range.start) ?? Buffer.alloc(0), end: toKey(range.end) ?? null, point: false });
  for (const prefix of [...(options.prefixes ?? []), ...(options.prefix ? [options.prefix] : [])])
    ranges.push({ key: Buffer.from(prefix), end: null, point: false });
  if (options.start !== undefined || options.end !== undefined)
    ranges.push({
      key: toKey(options.start) ?? Buffer.alloc(0),
      end: toKey(options.end) ?? null,
      point: false,
    });
  return ranges.length > 0 ? ranges : [{ key: Buffer.alloc(0), end: null, point: false }];
}

type Entry = { key?: KeyLike; data?: unknown };

/**
 * `@google-cloud/bigtable`'s `Table` by the methods the wrapper observes: described by shape, so
 * `keyspread`'s types compile without that optional package installed.
 */
export interface BigtableTableLike {
  insert(...args: never[]): unknown;
  mutate(...args: never[]): unknown;
  getRows(...args: never[]): unknown;
  createReadStream(...args: never[]): unknown;
  row(...args: never[]): unknown;
}

export function instrumentBigtableTable<T extends BigtableTableLike>(
  table: T,
  options: AccessLogSampling,
): T {
  const { sink } = options;
  const sampled = sampler(options.sampleRate);
  const logWrites = (entries: Entry | Entry[], started: number) => {
    const tsMs = Date.now();
    const latencyMs = performance.now() - started;
    for (const entry of Array.isArray(entries) ? entries : [entries]) {
      const key = toKey(entry.key);
      if (key && sampled()) sink.write({ tsMs, key, op: "write", bytes: dataBytes(entry.data), latencyMs });
    }
  };
  const logRead = (
    request: ReadRequest | undefined,
    rows: { id?: string; data?: unknown }[],
    started: number,
  ) => {
    const tsMs = Date.now();
    const latencyMs = performance.now() - started;
    const bytes = rows.reduce((sum, row) => sum + dataBytes(row.data), 0);
    const ranges = requestedRanges(request);
    for (const range of ranges) {
      const record: AccessRecord = range.point
        ? { tsMs, key: range.key, op: "read", bytes: bytes / ranges.length, latencyMs }
        : {
            tsMs,
            key: range.key,
            end: range.end ?? null,
            op: "scan",
            rows: rows.length / ranges.length,
            bytes: bytes / ranges.length,
            latencyMs,
          };
      sink.write(record);
    }
  };
  const writer =
    (method: (...args: unknown[]) => Promise<unknown>) =>
    async (entries: Entry | Entry[], ...rest: unknown[]) => {
      const started = performance.now();
      const result = await method(entries, ...rest);
      logWrites(entries, started);
      return result;
    };

  return new Proxy(table, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver);
      if (typeof value !== "function") return value;
      const method = value.bind(target) as (...args: unknown[]) => unknown;
      switch (property) {
        case "insert":
        case "mutate":
          return writer(method as (...args: unknown[]) => Promise<unknown>);
        case "getRows":
          return async (request?: ReadRequest, ...rest: unknown[]) => {
            const started = performance.now();
            const result = (await method(request, ...rest)) as [{ id?: string; data?: unknown }[]];
            if (sampled()) logRead(request, result[0], started);
            return result;
          };
        case "createReadStream":
          return (request?: ReadRequest, ...rest: unknown[]) => {
            const stream = method(request, ...rest) as NodeJS.ReadableStream & {
              emit: (...args: unknown[]) => boolean;
            };
            if (!sampled()) return stream;
            const started = performance.now();
            const rows: { data?: unknown }[] = [];
            // Observe what the stream emits, without reading it: the caller's flow is untouched.
            const emit = stream.emit;
            stream.emit = function (this: unknown, event: unknown, ...args: unknown[]) {
              if (event === "data") rows.push({ data: (args[0] as { data?: unknown }).data });
              if (event === "end") logRead(request, rows, started);
              return emit.call(this, event, ...args);
            };
            return stream;
          };
        case "row":
          return (key: string, ...rest: unknown[]) => instrumentRow(method(key, ...rest) as object, key);
        default:
          return method;
      }
    },
  });

  function instrumentRow<R extends object>(row: R, key: string): R {
    return new Proxy(row, {
      get(target, property, receiver) {
        const value = Reflect.get(target, property, receiver);
        if (typeof value !== "function") return value;
        const method = value.bind(target) as (...args: unknown[]) => Promise<unknown>;
        if (property === "get") {
          return async (...args: unknown[]) => {
            const started = performance.now();
            const result = (await method(...args)) as [{ data?: unknown }];
            if (sampled()) logRead({ keys: [key] }, [result[0]], started);
            return result;
          };
        }
        if (property === "save") {
          return async (data: unknown, ...rest: unknown[]) => {
            const started = performance.now();
            const result = await method(data, ...rest);
            logWrites({ key, data }, started);
            return result;
          };
        }
        return method;
      },
    });
  }
}
