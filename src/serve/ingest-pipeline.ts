/**
 * From accepted request to stored rows. A request's points join the current interval buffer and
 * its body is appended to the current write-ahead-log segment in the same tick, so a segment and a
 * buffer always hold the same points; the request is acknowledged when the segment's group commit
 * covers it. Every `intervalMs` the flusher opens a new segment, writes the old buffer as one row
 * per device per interval, and deletes the old segment once the store has every row.
 *
 * Segment ids are epoch milliseconds, strictly increasing across restarts: the newest segment file
 * is never deleted (only older ones, after their flush), so a restarted service always knows the
 * last id even if the clock went back.
 */
import { setTimeout as sleep } from "node:timers/promises";
import type { Mutation } from "../store/store.js";
import type { SaltedTable } from "../table/salted-table.js";
import type { AccessEntry, AccessLog } from "./access-log.js";
import type { HotspotMonitor } from "./hotspot-monitor.js";
import { type BodyFormat, parseIngestBody } from "./ingest-body.js";
import { type AggregatedRow, IntervalBuffer } from "./interval-buffer.js";
import type { MetricPoint } from "./point.js";
import { POINTS_QUALIFIER } from "./point-codec.js";
import type { ServiceMetrics } from "./service-metrics.js";
import { type WalSegment, WriteAheadLog } from "./write-ahead-log.js";

export interface IngestPipelineOptions {
  table: SaltedTable;
  walDirectory: string;
  intervalMs: number;
  metrics: ServiceMetrics;
  monitor: HotspotMonitor;
  accessLog?: AccessLog;
  log: (line: string) => void;
}

const FORMAT_BYTE: Record<BodyFormat, number> = { ndjson: 0, json: 1 };
const FORMAT_OF_BYTE: readonly BodyFormat[] = ["ndjson", "json"];
const RETRY_BASE_MS = 100;
/** Rows encoded and written per store call during a flush. */
const FLUSH_CHUNK_ROWS = 2_000;
const RETRY_MAX_MS = 5_000;

export class IngestPipeline {
  private buffer: IntervalBuffer;
  private timer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> = Promise.resolve();
  private closed = false;
  /** Acknowledged points not yet in the store (current buffer and flushes under way). */
  pendingPoints = 0;
  /** Store write calls and points they carried, since start (the bench's points per write). */
  readonly totals = { storeWrites: 0, rowsWritten: 0, pointsWritten: 0 };

  private constructor(
    private readonly options: IngestPipelineOptions,
    private readonly wal: WriteAheadLog,
    private segment: WalSegment,
  ) {
    this.buffer = new IntervalBuffer(options.intervalMs);
  }

  /** Opens the log, writes every segment a previous run left behind, and starts the flush timer. */
  static async open(options: IngestPipelineOptions): Promise<IngestPipeline> {
    const { table } = options;
    const { wal, recovered } = await WriteAheadLog.open(
      options.walDirectory,
      `${table.store.name} (schema ${table.schema.fingerprint})`,
    );
    const lastId = recovered.at(-1)?.id ?? 0;
    const segment = await wal.createSegment(Math.max(Date.now(), lastId + 1));
    const pipeline = new IngestPipeline(options, wal, segment);
    for (const { id, payloads, tornBytes } of recovered) {
      const buffer = new IntervalBuffer(options.intervalMs);
      for (const payload of payloads) buffer.add(decodePayload(payload));
      pipeline.pendingPoints += buffer.points;
      options.log(JSON.stringify({ event: "wal-replay", segment: id, points: buffer.points, tornBytes }));
      await pipeline.writeSegment(id, buffer);
    }
    pipeline.timer = setInterval(() => {
      // A failed flush keeps its segment file: the points are replayed at the next start.
      pipeline.flush().catch((error: unknown) => {
        options.log(JSON.stringify({ event: "flush-error", error: String(error) }));
      });
    }, options.intervalMs);
    pipeline.timer.unref();
    return pipeline;
  }

  /** Buffers the points and logs the body; resolves once they survive a crash. */
  accept(points: readonly MetricPoint[], format: BodyFormat, body: Buffer): Promise<void> {
    if (this.closed) return Promise.reject(new Error("the service is shutting down"));
    this.buffer.add(points);
    this.pendingPoints += points.length;
    const payload = Buffer.allocUnsafe(body.length + 1);
    payload[0] = FORMAT_BYTE[format];
    body.copy(payload, 1);
    return this.segment.append(payload);
  }

  /** Writes everything buffered so far (one flush after those already queued). */
  flush(): Promise<void> {
    const flushed = this.flushing.catch(() => {}).then(() => this.flushOnce());
    this.flushing = flushed;
    return flushed;
  }

  /** Stops the timer, flushes what is buffered, closes the log. */
  async close(): Promise<void> {
    clearInterval(this.timer);
    this.closed = true;
    await this.flush();
    await this.segment.close();
    await this.wal.release();
  }

  private async flushOnce(): Promise<void> {
    if (this.buffer.points === 0) return;
    const next = await this.wal.createSegment(Math.max(Date.now(), this.segment.id + 1));
    const [segment, buffer] = [this.segment, this.buffer];
    this.segment = next;
    this.buffer = new IntervalBuffer(this.options.intervalMs);
    await segment.close();
    await this.writeSegment(segment.id, buffer);
  }

  /**
   * Writes a segment's rows in chunks (the event loop serves requests between them), retrying
   * failed rows (rewrites are idempotent), then drops the segment's file.
   */
  private async writeSegment(id: number, buffer: IntervalBuffer): Promise<void> {
    let chunk: AggregatedRow[] = [];
    for (const row of buffer.rows(id)) {
      chunk.push(row);
      if (chunk.length === FLUSH_CHUNK_ROWS) {
        await this.writeRows(id, chunk);
        chunk = [];
      }
    }
    await this.writeRows(id, chunk);
    this.totals.pointsWritten += buffer.points;
    this.pendingPoints -= buffer.points;
    this.options.metrics.pendingPoints.set(this.pendingPoints);
    await this.wal.removeSegment(id);
  }

  private async writeRows(id: number, rows: readonly AggregatedRow[]): Promise<void> {
    if (rows.length === 0) return;
    const { table, metrics, monitor, accessLog } = this.options;
    const mutations: Mutation[] = rows.map((row) => ({
      type: "put",
      key: table.schema.encode(row.values),
      cells: row.cells,
    }));
    const started = performance.now();
    let pending = mutations;
    for (let attempt = 0; pending.length > 0; attempt++) {
      const { failed } = await table.store.write(pending);
      metrics.storeWrites.inc();
      this.totals.storeWrites++;
      if (failed.length === 0) break;
      this.options.log(
        JSON.stringify({
          event: "store-write-retry",
          segment: id,
          failedRows: failed.length,
          reason: failed[0]!.reason,
        }),
      );
      pending = failed.map((failure) => pending[failure.index]!);
      await sleep(Math.min(RETRY_MAX_MS, RETRY_BASE_MS * 2 ** attempt));
    }
    const writeMs = performance.now() - started;
    metrics.writeLatency.observe(writeMs / 1000);
    const entries: AccessEntry[] = new Array(rows.length);
    rows.forEach((row, index) => {
      const bucket = table.schema.bucketOf(row.values);
      metrics.rowsWritten.inc({ bucket: String(bucket) });
      metrics.pointsWritten.inc({ bucket: String(bucket) }, row.points);
      monitor.observeBucket(bucket, row.points);
      const bytes = row.cells.get(POINTS_QUALIFIER)!.length;
      entries[index] = { key: mutations[index]!.key, op: "write", bytes, latencyMs: Math.round(writeMs) };
    });
    accessLog?.record(Date.now(), entries);
    this.totals.rowsWritten += rows.length;
  }
}

function decodePayload(payload: Buffer): MetricPoint[] {
  const format = FORMAT_OF_BYTE[payload[0]!];
  if (format === undefined) throw new Error(`write-ahead log record of unknown format ${payload[0]}`);
  return parseIngestBody(payload.toString("utf8", 1), format);
}
