/**
 * `keyspread serve`: the fleet-incident metrics ingest service on a salted table, embedded store by
 * default. Prints one JSON line `{"url": …}` on stdout once listening; SIGTERM or SIGINT flushes
 * every acknowledged point to the store and exits.
 *
 * `keyspread serve keys add|list|revoke --auth FILE` manages the API keys a service started with
 * `--auth FILE` checks (it picks changes up while running); `keyspread serve schema` prints the
 * service's row key as a schema file (for `table create` and `migrate` when re-keying it live).
 *
 * The service follows the live migration in `--migration FILE` (default `<dir>/<table>.migration.json`),
 * which `keyspread migrate begin|advance` write while it runs.
 */
import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { type Command, Option } from "commander";
import { dump as dumpYaml } from "js-yaml";
import { usesOld } from "../../migrate/live/migration-phases.js";
import { readMigrationRecord } from "../../migrate/live/migration-record.js";
import { readApiKeyFile, updateApiKeyFile } from "../../serve/auth/api-key-file.js";
import { API_KEY_SCOPES, newApiKey, parseApiKeyScopes } from "../../serve/auth/api-keys.js";
import { parseTenantQuotas } from "../../serve/auth/tenant-admission.js";
import { DEFAULT_MAX_TENANTS } from "../../serve/auth/tenant-labels.js";
import { kubernetesManifests } from "../../serve/deploy/kubernetes-manifests.js";
import {
  DEFAULT_METRICS_BUCKETS,
  DEFAULT_METRICS_INTERVAL_MS,
  metricsSchema,
} from "../../serve/ingest/points/metrics-schema.js";
import {
  DEFAULT_DRAIN_DEADLINE_MS,
  type IngestServiceOptions,
  startIngestService,
} from "../../serve/ingest-service.js";
import { DEFAULT_HEARTBEAT_MS, DEFAULT_LEASE_MS } from "../../serve/replicas/replica-registry.js";
import { openStore, STORE_KINDS, type StoreKind } from "../../store/open.js";
import type { Store } from "../../store/store.js";
import { argumentOf, guarded, parsePositiveInt, wholeNumberIn, write } from "../shared/io.js";

const nonNegative = wholeNumberIn(0, Number.MAX_SAFE_INTEGER);

interface ServeOptions {
  store: StoreKind;
  table: string;
  dir: string;
  wal?: string;
  migration?: string;
  create?: boolean;
  host: string;
  port: number;
  interval: number;
  buckets: number;
  quota?: string;
  maxTenants: number;
  maxBody: number;
  maxInflight?: number;
  maxInflightPerTenant?: number;
  bodyTimeout: number;
  accessLog?: string;
  writeAppProfile?: string;
  latestAppProfile?: string;
  rangeAppProfile?: string;
  maxAge?: number;
  alertSustain: number;
  nodes?: number;
  monitorWindow: number;
  cacheTtl: number;
  idempotencyWindow: number;
  auth?: string;
  insecure?: boolean;
  tlsCert?: string;
  tlsKey?: string;
  drainDelay: number;
  drainDeadline: number;
  replicaHeartbeat: number;
  replicaLease: number;
  printK8s?: boolean;
  k8sReplicas: number;
  k8sImage: string;
}

export function registerServeCommands(program: Command): void {
  const serve = program
    .command("serve")
    .description("run the metrics ingest service (POST /v1/ingest, latest/range reads, /metrics, /heatmap)");
  withStoreOptions(serve);
  withListenOptions(serve);
  withIngestOptions(serve);
  withReadAndMonitorOptions(serve);
  withReplicaOptions(serve);
  serve.action(guarded(runServeCommand));
  registerKeyCommands(serve);
  registerSchemaCommand(serve);
}

/** Where the table, its write-ahead log and its migration record live. */
function withStoreOptions(serve: Command): void {
  serve
    .addOption(new Option("--store <kind>", "where the table lives").choices(STORE_KINDS).default("embedded"))
    .option("--table <name>", "table name", "metrics")
    .option("--dir <directory>", "embedded store: parent directory of the tables", "./.keyspread")
    .option("--wal <directory>", "write-ahead log directory (default: <dir>/<table>.wal)")
    .option(
      "--migration <file>",
      "follow the live migration recorded here (keyspread migrate begin|advance): a file, or bigtable:TABLE, this table, for replicas (default: <dir>/<table>.migration.json)",
    )
    .option("--create", "bigtable: create the table (with the --max-age GC rule) instead of opening it");
}

/** The address, and who may call it. */
function withListenOptions(serve: Command): void {
  serve
    .option(
      "--host <address>",
      "address to bind (beyond loopback only with --auth or --insecure)",
      "127.0.0.1",
    )
    .option("--port <n>", "port (0 picks a free one)", wholeNumberIn(0, 65_535), 8080)
    .option(
      "--auth <file>",
      "API key file (keyspread serve keys add): every request needs a key; the key names the tenant",
    )
    .option("--insecure", "without --auth, listen beyond loopback anyway (any client may act as any tenant)")
    .option("--tls-cert <file>", "serve HTTPS with this PEM certificate (chain); needs --tls-key")
    .option("--tls-key <file>", "the PEM private key of --tls-cert");
}

/** The row key, and the limits on what ingest takes. */
function withIngestOptions(serve: Command): void {
  serve
    .option(
      "--interval <ms>",
      "aggregation interval: one row per device per interval",
      wholeNumberIn(10, 3_600_000),
      DEFAULT_METRICS_INTERVAL_MS,
    )
    .option("--buckets <n>", "salt buckets of the row key", wholeNumberIn(1, 65_536), DEFAULT_METRICS_BUCKETS)
    .option("--quota <list>", "per-tenant points/s: default=RATE,TENANT=RATE[:BURST],…")
    .option(
      "--max-tenants <n>",
      "tenants tracked by name besides those in --quota/--auth; later ones share one quota and the (other) label",
      nonNegative,
      DEFAULT_MAX_TENANTS,
    )
    .option("--max-body <bytes>", "largest request body", parsePositiveInt, 16 * 1024 * 1024)
    .option(
      "--max-inflight <bytes>",
      "request body bytes held at once, all requests (default 4 × --max-body)",
      parsePositiveInt,
    )
    .option(
      "--max-inflight-per-tenant <bytes>",
      "request body bytes one tenant (without --auth, one client address) holds at once (default ¼ of --max-inflight, at least --max-body)",
      parsePositiveInt,
    )
    .option(
      "--body-timeout <seconds>",
      "a request body must arrive within this; a slower one gets 408 and its connection is closed",
      parsePositiveInt,
      30,
    )
    .option(
      "--idempotency-window <seconds>",
      "how long an Idempotency-Key is remembered",
      parsePositiveInt,
      86_400,
    );
}

/** Access log, read routing, retention, hotspot alerts and the latest-N cache. */
function withReadAndMonitorOptions(serve: Command): void {
  serve
    .option("--access-log <file>", "append a JSONL access log (the `keyspread heatmap` format)")
    .option(
      "--write-app-profile <id>",
      "Bigtable app profile for the ingest writes (e.g. the latest-N reads' single-cluster profile: they then read their writes)",
    )
    .option(
      "--latest-app-profile <id>",
      "Bigtable app profile for latest-N reads (e.g. single-cluster routing: they must see recent writes)",
    )
    .option(
      "--range-app-profile <id>",
      "Bigtable app profile for range reads (e.g. multi-cluster routing: dashboards can read the nearest cluster)",
    )
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
    .option("--cache-ttl <ms>", "latest-N cache time to live (0: off)", nonNegative, 2000);
}

/** Several replicas on one table, and their graceful stop. */
function withReplicaOptions(serve: Command): void {
  serve
    .option(
      "--drain-delay <seconds>",
      "on SIGTERM: readiness (GET /readyz) answers 503 at once, requests are still served this long, then the service stops accepting",
      nonNegative,
      0,
    )
    .option(
      "--drain-deadline <seconds>",
      "on SIGTERM: exit within this (the delay, requests in flight, the flush); keep it below terminationGracePeriodSeconds",
      parsePositiveInt,
      DEFAULT_DRAIN_DEADLINE_MS / 1000,
    )
    .option(
      "--replica-heartbeat <ms>",
      "bigtable: how often this replica renews its lease in the table's replica registry",
      parsePositiveInt,
      DEFAULT_HEARTBEAT_MS,
    )
    .option(
      "--replica-lease <ms>",
      "bigtable: a replica whose heartbeat is older is dead (its id may be claimed, it no longer shares the quotas)",
      parsePositiveInt,
      DEFAULT_LEASE_MS,
    )
    .option(
      "--print-k8s",
      "print Kubernetes manifests (StatefulSet with a log volume per replica, Services, PodDisruptionBudget) for this table and flags, and exit",
    )
    .option("--k8s-replicas <n>", "with --print-k8s: replicas", parsePositiveInt, 3)
    .option(
      "--k8s-image <image>",
      "with --print-k8s: an image whose entrypoint is keyspread (examples/k8s/Dockerfile)",
      "keyspread:0.1.0",
    );
}

/** Serves until SIGTERM or SIGINT, then drains, flushes and closes (exiting by the drain deadline). */
async function runServeCommand(options: ServeOptions): Promise<void> {
  if (options.printK8s) {
    await write(renderKubernetesManifests(options));
    return;
  }
  if (options.store === "bigtable" && options.maxAge !== undefined && !options.create) {
    throw new Error(
      "--max-age with --store bigtable needs --create: the GC rule is set when the table is created",
    );
  }
  if ((options.tlsCert === undefined) !== (options.tlsKey === undefined)) {
    throw new Error("--tls-cert and --tls-key go together: give both, or neither for plain HTTP");
  }
  const tls =
    options.tlsCert === undefined
      ? undefined
      : { cert: await readFile(options.tlsCert), key: await readFile(options.tlsKey!) };
  const migration = options.migration ?? join(options.dir, `${options.table}.migration.json`);
  const store = await openServiceStore(options, migration);
  const service = await startIngestService(serviceOptions(options, store, migration, tls)).catch(
    async (error: unknown) => {
      await store.close();
      throw error;
    },
  );
  // Handlers first: a supervisor may send SIGTERM the moment it reads the URL line.
  const stopped = new Promise<void>((resolve) => {
    const stop = () => resolve();
    process.once("SIGTERM", stop);
    process.once("SIGINT", stop);
  });
  await write(`${JSON.stringify({ url: service.url, store: store.name, replica: service.replicaId })}\n`);
  await stopped;
  // A flush the store does not finish by the deadline stays in the log (replayed at the next start).
  setTimeout(
    () => {
      process.stderr.write("keyspread: the drain deadline passed; exiting with what is left in the log\n");
      process.exit(1);
    },
    options.drainDeadline * 1000 + 2000,
  ).unref();
  await service.close();
}

/** The command line's options as the service's. */
function serviceOptions(
  options: ServeOptions,
  store: Store,
  migration: string,
  tls: IngestServiceOptions["tls"],
): IngestServiceOptions {
  return {
    store,
    // `--migration bigtable:…`: the record is held in the table, for replicas on several machines.
    migration: { file: migration, ...(migration.startsWith("bigtable:") ? { inTable: true } : {}) },
    walDirectory: options.wal ?? join(options.dir, `${options.table}.wal`),
    host: options.host,
    port: options.port,
    intervalMs: options.interval,
    buckets: options.buckets,
    quotas: options.quota === undefined ? undefined : parseTenantQuotas(options.quota),
    maxTenants: options.maxTenants,
    maxBodyBytes: options.maxBody,
    maxInflightBodyBytes: options.maxInflight,
    maxInflightBodyBytesPerTenant: options.maxInflightPerTenant,
    bodyTimeoutMs: options.bodyTimeout * 1000,
    idempotencyWindowMs: options.idempotencyWindow * 1000,
    accessLogPath: options.accessLog,
    appProfiles: {
      ...(options.writeAppProfile === undefined ? {} : { write: options.writeAppProfile }),
      ...(options.latestAppProfile === undefined ? {} : { latest: options.latestAppProfile }),
      ...(options.rangeAppProfile === undefined ? {} : { scan: options.rangeAppProfile }),
    },
    retention:
      options.maxAge !== undefined && options.store !== "bigtable"
        ? { maxAgeMs: options.maxAge * 1000 }
        : undefined,
    alertRules: { sustainMs: options.alertSustain * 1000 },
    simulatedNodes: options.nodes,
    monitorWindowMs: options.monitorWindow,
    latestCacheTtlMs: options.cacheTtl,
    authFile: options.auth,
    insecure: options.insecure,
    tls,
    // Only a Bigtable table is written by several processes (an embedded one is locked by one).
    ...(options.store === "bigtable"
      ? { replicas: { heartbeatMs: options.replicaHeartbeat, leaseMs: options.replicaLease } }
      : {}),
    drain: { delayMs: options.drainDelay * 1000, deadlineMs: options.drainDeadline * 1000 },
  };
}

/**
 * The service's own table. Once a migration moved writes to the new table the service no longer
 * uses it, and an embedded table may have been dropped: it is then not recreated empty, only named
 * (for the log's identity).
 */
async function openServiceStore(options: ServeOptions, migration: string): Promise<Store> {
  const location = join(options.dir, options.table);
  if (
    options.store === "embedded" &&
    !existsSync(location) &&
    !migration.startsWith("bigtable:") &&
    !usesOld((await readMigrationRecord(migration))?.phase ?? "single")
  ) {
    return droppedStore(`embedded:${location}`);
  }
  return openStore(options.store, {
    table: options.table,
    directory: options.dir,
    create: options.create,
    maxAgeSeconds: options.maxAge,
  });
}

function droppedStore(name: string): Store {
  const dropped = () => {
    throw new Error(`${name} was dropped after its migration was done`);
  };
  return {
    name,
    write: dropped,
    checkAndMutate: dropped,
    get: dropped,
    read: dropped,
    sampleKeys: dropped,
    close: async () => {},
  };
}

/** The manifests as YAML documents; the table and key flags are the command line's own. */
function renderKubernetesManifests(options: ServeOptions): string {
  const manifests = kubernetesManifests({
    replicas: options.k8sReplicas,
    image: options.k8sImage,
    bigtable: {
      project: process.env.KEYSPREAD_BIGTABLE_PROJECT || "my-project",
      instance: process.env.KEYSPREAD_BIGTABLE_INSTANCE || "my-instance",
      table: options.table,
    },
    serveFlags: [
      "--buckets",
      String(options.buckets),
      "--interval",
      String(options.interval),
      ...(options.quota === undefined ? [] : ["--quota", options.quota]),
    ],
  });
  return manifests
    .map((manifest) => dumpYaml(manifest, { lineWidth: -1, noRefs: true, quoteStyle: "double" }))
    .join("---\n");
}

function registerSchemaCommand(serve: Command): void {
  serve
    .command("schema")
    .description(
      "print the service's row key as a schema file (JSON) for --buckets and --interval: the old or new table of a live re-keying",
    )
    // Declared for the help only: serve's own --interval/--buckets take the values (see keyFileOf).
    .option("--interval <ms>", `aggregation interval (default ${DEFAULT_METRICS_INTERVAL_MS})`)
    .option("--buckets <n>", `salt buckets (default ${DEFAULT_METRICS_BUCKETS})`)
    .action(guarded(runSchemaCommand));
}

async function runSchemaCommand(_options: unknown, command: Command): Promise<void> {
  const { interval, buckets } = command.optsWithGlobals() as { interval: number; buckets: number };
  await write(`${JSON.stringify(metricsSchema(buckets, interval).spec, null, 2)}\n`);
}

function registerKeyCommands(serve: Command): void {
  const keys = serve.command("keys").description("manage the API keys of `keyspread serve --auth FILE`");
  const authOption = () => new Option("--auth <file>", "the API key file (required)");
  keys
    .command("add")
    .description("create a key for one tenant; prints it once (the file keeps only its SHA-256)")
    .addOption(authOption())
    .requiredOption("--tenant <tenant>", "the tenant the key acts for")
    .requiredOption(
      "--scopes <list>",
      `comma-separated: ${API_KEY_SCOPES.join(", ")}`,
      argumentOf(parseApiKeyScopes),
    )
    .action(guarded(runAddKeyCommand));
  keys
    .command("list")
    .description("one JSON line per key: id, tenant, scopes, created and revoked times (never the key)")
    .addOption(authOption())
    .action(guarded(runListKeysCommand));
  keys
    .command("revoke")
    .description("revoke a key by its id; a running service refuses it within a second")
    .argument("<id>", "the key's id (keys list)")
    .addOption(authOption())
    .action(guarded(runRevokeKeyCommand));
}

async function runAddKeyCommand(
  options: { tenant: string; scopes: ReturnType<typeof parseApiKeyScopes> },
  command: Command,
): Promise<void> {
  const { key, entry } = newApiKey(options.tenant, options.scopes);
  await updateApiKeyFile(keyFileOf(command), (file) => file.keys.push(entry));
  await write(`${JSON.stringify({ id: entry.id, tenant: entry.tenant, scopes: entry.scopes, key })}\n`);
  process.stderr.write("keyspread: store this key now; it cannot be shown again\n");
}

async function runListKeysCommand(_options: unknown, command: Command): Promise<void> {
  const file = await readApiKeyFile(keyFileOf(command), { mustExist: true });
  await write(file.keys.map(({ sha256: _, ...shown }) => `${JSON.stringify(shown)}\n`).join(""));
}

async function runRevokeKeyCommand(id: string, _options: unknown, command: Command): Promise<void> {
  const revokedAt = new Date().toISOString();
  const path = keyFileOf(command);
  await updateApiKeyFile(path, (file) => {
    const entry = file.keys.find((candidate) => candidate.id === id);
    if (entry === undefined) throw new Error(`no key ${JSON.stringify(id)} in ${path} (see keys list)`);
    entry.revokedAt ??= revokedAt;
  });
  await write(`${JSON.stringify({ id, revokedAt })}\n`);
}

/**
 * The key file a `keys` subcommand works on. `serve` has an `--auth` option of its own, and commander
 * hands `--auth` to it wherever it stands (likewise `--interval` and `--buckets` for `schema`); the
 * subcommands declare them too, so they show in their help.
 */
function keyFileOf(command: Command): string {
  const path = (command.optsWithGlobals() as { auth?: string }).auth;
  if (path === undefined) throw new Error("--auth <file> is required: the API key file");
  return path;
}
