/**
 * `keyspread serve`: the seed-003 metrics ingest service on a salted table, embedded store by
 * default. Prints one JSON line `{"url": …}` on stdout once listening; SIGTERM or SIGINT flushes
 * every acknowledged point to the store and exits.
 */
import { join } from "node:path";
import { type Command, Option } from "commander";
import { startIngestService } from "../serve/ingest-service.js";
import { parseQuotas } from "../serve/tenant-admission.js";
import { openStore, STORE_KINDS, type StoreKind } from "../store/open.js";
import { guarded, parsePositiveInt, wholeNumberIn, write } from "./io.js";

const nonNegative = wholeNumberIn(0, Number.MAX_SAFE_INTEGER);

interface ServeOptions {
  store: StoreKind;
  table: string;
  dir: string;
  wal?: string;
  create?: boolean;
  host: string;
  port: number;
  interval: number;
  buckets: number;
  quota?: string;
  maxBody: number;
  accessLog?: string;
  maxAge?: number;
  alertSustain: number;
  nodes?: number;
  monitorWindow: number;
  cacheTtl: number;
}

export function registerServeCommands(program: Command): void {
  program
    .command("serve")
    .description("run the metrics ingest service (POST /v1/ingest, latest/range reads, /metrics, /heatmap)")
    .addOption(new Option("--store <kind>", "where the table lives").choices(STORE_KINDS).default("embedded"))
    .option("--table <name>", "table name", "metrics")
    .option("--dir <directory>", "embedded store: parent directory of the tables", "./.keyspread")
    .option("--wal <directory>", "write-ahead log directory (default: <dir>/<table>.wal)")
    .option("--create", "bigtable: create the table (with the --max-age GC rule) instead of opening it")
    .option("--host <address>", "address to bind", "127.0.0.1")
    .option("--port <n>", "port (0 picks a free one)", wholeNumberIn(0, 65_535), 8080)
    .option(
      "--interval <ms>",
      "aggregation interval: one row per device per interval",
      wholeNumberIn(10, 3_600_000),
      2000,
    )
    .option("--buckets <n>", "salt buckets of the row key", wholeNumberIn(1, 65_536), 16)
    .option("--quota <list>", "per-tenant points/s: default=RATE,TENANT=RATE[:BURST],…")
    .option("--max-body <bytes>", "largest request body", parsePositiveInt, 16 * 1024 * 1024)
    .option("--access-log <file>", "append a JSONL access log (the `keyspread heatmap` format)")
    .option(
      "--max-age <seconds>",
      "retention: Bigtable GC rule on --create; embedded/memory: periodic sweep",
      parsePositiveInt,
    )
    .option("--alert-sustain <seconds>", "a hot bucket must last this long to alert", nonNegative, 900)
    .option(
      "--nodes <n>",
      "also alert on N simulated nodes, each serving a contiguous run of buckets",
      parsePositiveInt,
    )
    .option(
      "--monitor-window <ms>",
      "how often skew, hot prefixes and alerts are evaluated",
      parsePositiveInt,
      10_000,
    )
    .option("--cache-ttl <ms>", "latest-N cache time to live (0: off)", nonNegative, 2000)
    .action(
      guarded(async (options: ServeOptions) => {
        if (options.store === "bigtable" && options.maxAge !== undefined && !options.create) {
          throw new Error(
            "--max-age with --store bigtable needs --create: the GC rule is set when the table is created",
          );
        }
        const store = await openStore(options.store, {
          table: options.table,
          directory: options.dir,
          create: options.create,
          maxAgeSeconds: options.maxAge,
        });
        const service = await startIngestService({
          store,
          walDirectory: options.wal ?? join(options.dir, `${options.table}.wal`),
          host: options.host,
          port: options.port,
          intervalMs: options.interval,
          buckets: options.buckets,
          quotas: options.quota === undefined ? undefined : parseQuotas(options.quota),
          maxBodyBytes: options.maxBody,
          accessLogPath: options.accessLog,
          retention:
            options.maxAge !== undefined && options.store !== "bigtable"
              ? { maxAgeMs: options.maxAge * 1000 }
              : undefined,
          alertRules: { sustainMs: options.alertSustain * 1000 },
          simulatedNodes: options.nodes,
          monitorWindowMs: options.monitorWindow,
          latestCacheTtlMs: options.cacheTtl,
        });
        await write(`${JSON.stringify({ url: service.url, store: store.name })}\n`);
        await new Promise<void>((resolve) => {
          const stop = () => resolve();
          process.once("SIGTERM", stop);
          process.once("SIGINT", stop);
        });
        await service.close();
      }),
    );
}
