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
import { kubernetesManifests } from "../../serve/deploy/kubernetes-manifests.js";
import { metricsSchema } from "../../serve/ingest/points/metrics-schema.js";
import { startIngestService } from "../../serve/ingest-service.js";
import { type IngestServiceOptions, SERVE_DEFAULTS } from "../../serve/serve-config.js";
import { openStore, STORE_KINDS, type StoreKind } from "../../store/open/open.js";
import type { Store } from "../../store/store.js";
import { formatMs } from "../shared/duration-flag.js";
import { argumentOf, guarded, parsePositiveInt, write } from "../shared/io.js";
import { overlayOptions, readServeConfigFile } from "./serve-config-file.js";
import { addServiceFlags, SERVICE_FLAGS, serviceOptionsOf } from "./serve-flags.js";

/** The flags that are not the service's options: where its table is, and the Kubernetes output. */
interface ServeCommandFlags {
  store: StoreKind;
  table: string;
  dir: string;
  wal?: string;
  migration?: string;
  config?: string;
  create?: boolean;
  tlsCert?: string;
  tlsKey?: string;
  printK8s?: boolean;
  k8sReplicas: number;
  k8sImage: string;
}

export function registerServeCommands(program: Command): void {
  const serve = program
    .command("serve")
    .description("run the metrics ingest service (POST /v1/ingest, latest/range reads, /metrics, /heatmap)");
  withStoreOptions(serve);
  serve.option(
    "--config <file>",
    "the service's options as JSON, by their library names and units (intervalMs, drain.deadlineMs, …); flags given win",
  );
  addServiceFlags(serve, SERVICE_FLAGS.listen);
  serve
    .option("--tls-cert <file>", "serve HTTPS with this PEM certificate (chain); needs --tls-key")
    .option("--tls-key <file>", "the PEM private key of --tls-cert");
  addServiceFlags(serve, SERVICE_FLAGS.ingest);
  addServiceFlags(serve, SERVICE_FLAGS.readAndMonitor);
  addServiceFlags(serve, SERVICE_FLAGS.replicas);
  withKubernetesOptions(serve);
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

function withKubernetesOptions(serve: Command): void {
  serve
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
async function runServeCommand(
  flags: ServeCommandFlags & Record<string, unknown>,
  command: Command,
): Promise<void> {
  const given = await serviceOptionsGiven(flags, command);
  if (flags.printK8s) {
    await write(renderKubernetesManifests(flags, given));
    return;
  }
  const maxAgeMs = given.retention?.maxAgeMs;
  if (flags.store === "bigtable" && maxAgeMs !== undefined && !flags.create) {
    throw new Error(
      "--max-age with --store bigtable needs --create: the GC rule is set when the table is created",
    );
  }
  if (flags.store === "bigtable" && maxAgeMs !== undefined && maxAgeMs % 1000 !== 0) {
    throw new Error(`--max-age with --store bigtable: the GC rule takes whole seconds, not ${maxAgeMs} ms`);
  }
  if ((flags.tlsCert === undefined) !== (flags.tlsKey === undefined)) {
    throw new Error("--tls-cert and --tls-key go together: give both, or neither for plain HTTP");
  }
  const tls =
    flags.tlsCert !== undefined && flags.tlsKey !== undefined
      ? { cert: await readFile(flags.tlsCert), key: await readFile(flags.tlsKey) }
      : undefined;
  const migration = flags.migration ?? join(flags.dir, `${flags.table}.migration.json`);
  const bigtable = flags.store === "bigtable";
  const service = await startIngestService({
    ...given,
    store: await openServiceStore(flags, migration, maxAgeMs),
    // `--migration bigtable:…`: the record is held in the table, for replicas on several machines.
    migration: { file: migration, ...(migration.startsWith("bigtable:") ? { inTable: true } : {}) },
    walDirectory: flags.wal ?? join(flags.dir, `${flags.table}.wal`),
    ...(tls ? { tls } : {}),
    // Bigtable keeps its own GC rule; only a Bigtable table is written by several processes (an
    // embedded one is locked by one).
    retention: bigtable ? undefined : given.retention,
    replicas: bigtable ? { ...given.replicas } : undefined,
  });
  // Handlers first: a supervisor may send SIGTERM the moment it reads the URL line.
  const stopped = new Promise<void>((resolve) => {
    const stop = () => resolve();
    process.once("SIGTERM", stop);
    process.once("SIGINT", stop);
  });
  await write(
    `${JSON.stringify({ url: service.url, store: service.config.store.name, replica: service.replicaId })}\n`,
  );
  await stopped;
  // A flush the store does not finish by the deadline stays in the log (replayed at the next start).
  setTimeout(() => {
    process.stderr.write("keyspread: the drain deadline passed; exiting with what is left in the log\n");
    process.exit(1);
  }, service.config.drain.deadlineMs + 2000).unref();
  await service.close();
}

/** The service's options: the command line's defaults, under the `--config` file, under the flags given. */
async function serviceOptionsGiven(
  flags: ServeCommandFlags & Record<string, unknown>,
  command: Command,
): Promise<Partial<IngestServiceOptions>> {
  const bySource = (defaulted: boolean) =>
    Object.fromEntries(
      Object.entries(flags).filter(
        ([name]) => (command.getOptionValueSource(name) === "default") === defaulted,
      ),
    );
  const file = flags.config === undefined ? {} : await readServeConfigFile(flags.config);
  return overlayOptions(
    overlayOptions(serviceOptionsOf(bySource(true)), file),
    serviceOptionsOf(bySource(false)),
  );
}

/**
 * The service's own table. Once a migration moved writes to the new table the service no longer
 * uses it, and an embedded table may have been dropped: it is then not recreated empty, only named
 * (for the log's identity).
 */
async function openServiceStore(
  flags: ServeCommandFlags,
  migration: string,
  maxAgeMs: number | undefined,
): Promise<Store> {
  const location = join(flags.dir, flags.table);
  if (
    flags.store === "embedded" &&
    !existsSync(location) &&
    !migration.startsWith("bigtable:") &&
    !usesOld((await readMigrationRecord(migration))?.phase ?? "single")
  ) {
    return droppedStore(`embedded:${location}`);
  }
  return openStore(flags.store, {
    table: flags.table,
    directory: flags.dir,
    create: flags.create,
    maxAgeSeconds: maxAgeMs === undefined ? undefined : maxAgeMs / 1000,
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
function renderKubernetesManifests(
  flags: ServeCommandFlags & { quota?: string },
  given: Partial<IngestServiceOptions>,
): string {
  const manifests = kubernetesManifests({
    replicas: flags.k8sReplicas,
    image: flags.k8sImage,
    bigtable: {
      project: process.env.KEYSPREAD_BIGTABLE_PROJECT || "my-project",
      instance: process.env.KEYSPREAD_BIGTABLE_INSTANCE || "my-instance",
      table: flags.table,
    },
    serveFlags: [
      "--buckets",
      String(given.buckets ?? SERVE_DEFAULTS.buckets),
      "--interval",
      formatMs(given.intervalMs ?? SERVE_DEFAULTS.intervalMs),
      ...(flags.quota === undefined ? [] : ["--quota", flags.quota]),
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
    .option("--interval <duration>", `aggregation interval (default ${formatMs(SERVE_DEFAULTS.intervalMs)})`)
    .option("--buckets <n>", `salt buckets (default ${SERVE_DEFAULTS.buckets})`)
    .action(guarded(runSchemaCommand));
}

async function runSchemaCommand(_options: unknown, command: Command): Promise<void> {
  const { interval, buckets } = command.optsWithGlobals() as { interval?: number; buckets?: number };
  const schema = metricsSchema(buckets ?? SERVE_DEFAULTS.buckets, interval ?? SERVE_DEFAULTS.intervalMs);
  await write(`${JSON.stringify(schema.spec, null, 2)}\n`);
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
