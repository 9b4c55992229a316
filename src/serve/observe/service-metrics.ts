/** The service's Prometheus metrics (prom-client), in a registry of its own so services can coexist. */
import { Counter, Gauge, Histogram, Registry } from "prom-client";

const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export class ServiceMetrics {
  readonly registry = new Registry();
  readonly pointsIngested = new Counter({
    name: "keyspread_ingest_points_total",
    help: "Points acknowledged, by tenant (rate() gives each tenant's ingest rate); tenants past --max-tenants count as (other)",
    labelNames: ["tenant"],
    registers: [this.registry],
  });
  readonly replicasLive = new Gauge({
    name: "keyspread_replicas_live",
    help: "Live replicas writing the table, this one included (its registry's heartbeats); 1 for a single service",
    registers: [this.registry],
  });
  readonly quotaShare = new Gauge({
    name: "keyspread_quota_share_points_per_second",
    help: "Points/s this replica admits per quota (a tenant's own, or default): the quota divided by the live replicas, so sum() over replicas is the quota",
    labelNames: ["quota"],
    registers: [this.registry],
  });
  readonly requests = new Counter({
    name: "keyspread_http_requests_total",
    help: "HTTP requests by route and status",
    labelNames: ["route", "status"],
    registers: [this.registry],
  });
  readonly rejections = new Counter({
    name: "keyspread_admission_rejections_total",
    help: "Ingest requests refused by per-tenant admission control, by tenant and status (429 over quota, 413 over burst)",
    labelNames: ["tenant", "status"],
    registers: [this.registry],
  });
  readonly rowsWritten = new Counter({
    name: "keyspread_store_rows_written_total",
    help: "Aggregated rows written to the store, by salt bucket",
    labelNames: ["bucket"],
    registers: [this.registry],
  });
  readonly pointsWritten = new Counter({
    name: "keyspread_store_points_written_total",
    help: "Points written to the store, by salt bucket (the write load each bucket takes)",
    labelNames: ["bucket"],
    registers: [this.registry],
  });
  readonly storeWrites = new Counter({
    name: "keyspread_store_write_batches_total",
    help: "Store write calls (one per flush)",
    registers: [this.registry],
  });
  readonly ackLatency = new Histogram({
    name: "keyspread_ingest_ack_seconds",
    help: "Time from a request's arrival to its acknowledgement (after the write-ahead log sync)",
    buckets: LATENCY_BUCKETS,
    registers: [this.registry],
  });
  readonly writeLatency = new Histogram({
    name: "keyspread_store_write_seconds",
    help: "Time to write one flush's rows to the store",
    buckets: LATENCY_BUCKETS,
    registers: [this.registry],
  });
  readonly readLatency = new Histogram({
    name: "keyspread_read_seconds",
    help: "Read request latency by route",
    labelNames: ["route"],
    buckets: LATENCY_BUCKETS,
    registers: [this.registry],
  });
  readonly bucketSkew = new Gauge({
    name: "keyspread_bucket_skew",
    help: "Busiest salt bucket's points over the mean, in the last monitoring window (1 = even)",
    registers: [this.registry],
  });
  readonly hotPrefixShare = new Gauge({
    name: "keyspread_hot_prefix_share",
    help: "Share of the last window's points taken by each of the hottest device-id prefixes (Space-Saving)",
    labelNames: ["prefix", "rank"],
    registers: [this.registry],
  });
  readonly prefixShift = new Gauge({
    name: "keyspread_prefix_concentration_shift",
    help: "Total variation distance between the hot-prefix mix of the last two windows",
    registers: [this.registry],
  });
  readonly alertActive = new Gauge({
    name: "keyspread_alert_active",
    help: "1 while an alert rule fires, by rule and subject",
    labelNames: ["rule", "subject"],
    registers: [this.registry],
  });
  readonly deadLetters = new Counter({
    name: "keyspread_dead_letters_total",
    help: "Rows the store refused (or whose key could not be encoded) and unreadable log records, moved to the dead-letter file instead of blocking flushes",
    labelNames: ["kind"],
    registers: [this.registry],
  });
  readonly walCorruptRecords = new Counter({
    name: "keyspread_wal_corrupt_records_total",
    help: "Damaged write-ahead-log records (or damaged ranges) skipped on replay; a torn tail from a crash is not counted",
    registers: [this.registry],
  });
  readonly walCorruptBytes = new Counter({
    name: "keyspread_wal_corrupt_bytes_total",
    help: "Bytes of damaged write-ahead-log records skipped on replay",
    registers: [this.registry],
  });
  readonly walAppendFailures = new Counter({
    name: "keyspread_wal_append_failures_total",
    help: "Requests refused with 503 because the write-ahead log could not be written (disk full, I/O error)",
    registers: [this.registry],
  });
  readonly inflightBodyBytes = new Gauge({
    name: "keyspread_inflight_body_bytes",
    help: "Request body bytes held in memory now (read, parsed or waiting for their log sync)",
    registers: [this.registry],
  });
  readonly idempotentReplays = new Counter({
    name: "keyspread_idempotent_replays_total",
    help: "Retries answered from an earlier request with the same Idempotency-Key, storing nothing new",
    registers: [this.registry],
  });
  readonly authRefusals = new Counter({
    name: "keyspread_auth_refusals_total",
    help: "Requests refused by authentication (401: no valid key) or authorisation (403: scope or tenant)",
    labelNames: ["status"],
    registers: [this.registry],
  });
  readonly pendingPoints = new Gauge({
    name: "keyspread_pending_points",
    help: "Acknowledged points waiting for their flush to the store",
    registers: [this.registry],
  });
}
