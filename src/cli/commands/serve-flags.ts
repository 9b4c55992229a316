/**
 * `keyspread serve`'s flags that set the service's options: one entry each, naming the option it
 * sets (`IngestServiceOptions`, a dotted path for a nested one). The defaults shown are the
 * service's own (`SERVE_DEFAULTS`); a flag not given leaves the option to that default. Durations
 * are written with a unit and become milliseconds.
 */
import { type Command, Option } from "commander";
import { parseTenantQuotas } from "../../serve/auth/tenant-admission.js";
import { type IngestServiceOptions, SERVE_DEFAULTS } from "../../serve/serve-config.js";
import { durationMs, formatMs } from "../shared/duration-flag.js";
import { parsePositiveInt, wholeNumberIn } from "../shared/io.js";

/** The options a flag may set: a field, or a field of `appProfiles`, `alertRules`, `drain`, `replicas`, `retention`. */
export type ServiceOptionPath =
  | Exclude<keyof IngestServiceOptions, "appProfiles" | "alertRules" | "drain" | "replicas" | "retention">
  | `appProfiles.${"write" | "latest" | "scan"}`
  | "alertRules.sustainMs"
  | `drain.${"delayMs" | "deadlineMs"}`
  | `replicas.${"heartbeatMs" | "leaseMs"}`
  | "retention.maxAgeMs";

export interface ServiceFlag {
  /** Commander's flag text: `--interval <duration>`. */
  flags: string;
  description: string;
  sets: ServiceOptionPath;
  /** Commander's parser: a bad value is a usage error. */
  parse?: (text: string) => unknown;
  /** Made into the option's value when the service starts (the flag keeps the text, e.g. for --print-k8s). */
  convert?: (text: string) => unknown;
  /** The default shown in the help (the service applies its own). */
  shownDefault?: number | string;
  /** A default of the command line's own, unlike the library's. */
  commandDefault?: unknown;
}

const nonNegative = wholeNumberIn(0, Number.MAX_SAFE_INTEGER);

function duration(flag: string, bareUnit: "ms" | "s", bounds: { minMs?: number; maxMs?: number } = {}) {
  return durationMs({ flag, bareUnit, ...bounds });
}

/** The flags, in the help's order, by the help's groups. */
export const SERVICE_FLAGS: Record<"listen" | "ingest" | "readAndMonitor" | "replicas", ServiceFlag[]> = {
  listen: [
    {
      flags: "--host <address>",
      description: "address to bind (beyond loopback only with --auth or --insecure)",
      sets: "host",
      shownDefault: SERVE_DEFAULTS.host,
    },
    {
      flags: "--port <n>",
      description: "port (0 picks a free one)",
      sets: "port",
      parse: wholeNumberIn(0, 65_535),
      commandDefault: SERVE_DEFAULTS.cliPort,
    },
    {
      flags: "--auth <file>",
      description:
        "API key file (keyspread serve keys add): every request needs a key; the key names the tenant",
      sets: "authFile",
    },
    {
      flags: "--insecure",
      description: "without --auth, listen beyond loopback anyway (any client may act as any tenant)",
      sets: "insecure",
    },
  ],
  ingest: [
    {
      flags: "--interval <duration>",
      description: "aggregation interval: one row per device per interval (e.g. 2s, 500ms)",
      sets: "intervalMs",
      parse: duration("--interval", "ms", { minMs: 10, maxMs: 3_600_000 }),
      shownDefault: formatMs(SERVE_DEFAULTS.intervalMs),
    },
    {
      flags: "--buckets <n>",
      description: "salt buckets of the row key",
      sets: "buckets",
      parse: wholeNumberIn(1, 65_536),
      shownDefault: SERVE_DEFAULTS.buckets,
    },
    {
      flags: "--quota <list>",
      description: "per-tenant points/s: default=RATE,TENANT=RATE[:BURST],…",
      sets: "quotas",
      convert: parseTenantQuotas,
    },
    {
      flags: "--max-tenants <n>",
      description:
        "tenants tracked by name besides those in --quota/--auth; later ones share one quota and the (other) label",
      sets: "maxTenants",
      parse: nonNegative,
      shownDefault: SERVE_DEFAULTS.maxTenants,
    },
    {
      flags: "--max-body <bytes>",
      description: "largest request body",
      sets: "maxBodyBytes",
      parse: parsePositiveInt,
      shownDefault: SERVE_DEFAULTS.maxBodyBytes,
    },
    {
      flags: "--max-inflight <bytes>",
      description: "request body bytes held at once, all requests (default 4 × --max-body)",
      sets: "maxInflightBodyBytes",
      parse: parsePositiveInt,
    },
    {
      flags: "--max-inflight-per-tenant <bytes>",
      description:
        "request body bytes one tenant (without --auth, one client address) holds at once (default ¼ of --max-inflight, at least --max-body)",
      sets: "maxInflightBodyBytesPerTenant",
      parse: parsePositiveInt,
    },
    {
      flags: "--body-timeout <duration>",
      description:
        "a request body must arrive within this; a slower one gets 408 and its connection is closed",
      sets: "bodyTimeoutMs",
      parse: duration("--body-timeout", "s", { minMs: 100 }),
      shownDefault: formatMs(SERVE_DEFAULTS.bodyTimeoutMs),
    },
    {
      flags: "--idempotency-window <duration>",
      description: "how long an Idempotency-Key is remembered",
      sets: "idempotencyWindowMs",
      parse: duration("--idempotency-window", "s"),
      shownDefault: formatMs(SERVE_DEFAULTS.idempotencyWindowMs),
    },
  ],
  readAndMonitor: [
    {
      flags: "--access-log <file>",
      description: "append a JSONL access log (the `keyspread heatmap` format)",
      sets: "accessLogPath",
    },
    {
      flags: "--write-app-profile <id>",
      description:
        "Bigtable app profile for the ingest writes (e.g. the latest-N reads' single-cluster profile: they then read their writes)",
      sets: "appProfiles.write",
    },
    {
      flags: "--latest-app-profile <id>",
      description:
        "Bigtable app profile for latest-N reads (e.g. single-cluster routing: they must see recent writes)",
      sets: "appProfiles.latest",
    },
    {
      flags: "--range-app-profile <id>",
      description:
        "Bigtable app profile for range reads (e.g. multi-cluster routing: dashboards can read the nearest cluster)",
      sets: "appProfiles.scan",
    },
    {
      flags: "--max-age <duration>",
      description: "retention: Bigtable GC rule on --create (whole seconds); embedded/memory: periodic sweep",
      sets: "retention.maxAgeMs",
      parse: duration("--max-age", "s"),
    },
    {
      flags: "--alert-sustain <duration>",
      description: "a hot bucket must last this long to alert",
      sets: "alertRules.sustainMs",
      parse: duration("--alert-sustain", "s", { minMs: 0 }),
      shownDefault: formatMs(SERVE_DEFAULTS.alertSustainMs),
    },
    {
      flags: "--nodes <n>",
      description: "also alert on N simulated nodes, each serving a contiguous run of buckets",
      sets: "simulatedNodes",
      parse: parsePositiveInt,
    },
    {
      flags: "--monitor-window <duration>",
      description: "how often skew, hot prefixes and alerts are evaluated",
      sets: "monitorWindowMs",
      parse: duration("--monitor-window", "ms"),
      shownDefault: formatMs(SERVE_DEFAULTS.monitorWindowMs),
    },
    {
      flags: "--cache-ttl <duration>",
      description: "latest-N cache time to live (0s: off)",
      sets: "latestCacheTtlMs",
      parse: duration("--cache-ttl", "ms", { minMs: 0 }),
      shownDefault: formatMs(SERVE_DEFAULTS.latestCacheTtlMs),
    },
  ],
  replicas: [
    {
      flags: "--drain-delay <duration>",
      description:
        "on SIGTERM: readiness (GET /readyz) answers 503 at once, requests are still served this long, then the service stops accepting",
      sets: "drain.delayMs",
      parse: duration("--drain-delay", "s", { minMs: 0 }),
      shownDefault: formatMs(SERVE_DEFAULTS.drainDelayMs),
    },
    {
      flags: "--drain-deadline <duration>",
      description:
        "on SIGTERM: exit within this (the delay, requests in flight, the flush); keep it below terminationGracePeriodSeconds",
      sets: "drain.deadlineMs",
      parse: duration("--drain-deadline", "s"),
      shownDefault: formatMs(SERVE_DEFAULTS.drainDeadlineMs),
    },
    {
      flags: "--replica-heartbeat <duration>",
      description: "bigtable: how often this replica renews its lease in the table's replica registry",
      sets: "replicas.heartbeatMs",
      parse: duration("--replica-heartbeat", "ms"),
      shownDefault: formatMs(SERVE_DEFAULTS.replicaHeartbeatMs),
    },
    {
      flags: "--replica-lease <duration>",
      description:
        "bigtable: a replica whose heartbeat is older is dead (its id may be claimed, it no longer shares the quotas)",
      sets: "replicas.leaseMs",
      parse: duration("--replica-lease", "ms"),
      shownDefault: formatMs(SERVE_DEFAULTS.replicaLeaseMs),
    },
  ],
};

/** Declares the flags of one group on `command`. */
export function addServiceFlags(command: Command, flags: readonly ServiceFlag[]): void {
  for (const flag of flags) {
    const shown = flag.shownDefault === undefined ? "" : ` (default: ${flag.shownDefault})`;
    const option = new Option(flag.flags, `${flag.description}${shown}`);
    if (flag.parse) option.argParser(flag.parse);
    if (flag.commandDefault !== undefined) option.default(flag.commandDefault);
    command.addOption(option);
  }
}

/** The service options the given flags set (those not given are left out: the service's defaults apply). */
export function serviceOptionsOf(values: Record<string, unknown>): Partial<IngestServiceOptions> {
  const options: Record<string, unknown> = {};
  for (const flag of Object.values(SERVICE_FLAGS).flat()) {
    const given = values[new Option(flag.flags).attributeName()];
    if (given === undefined) continue;
    const value = flag.convert ? flag.convert(String(given)) : given;
    const [field, nested] = flag.sets.split(".") as [string, string | undefined];
    if (nested === undefined) options[field] = value;
    else options[field] = { ...(options[field] as object | undefined), [nested]: value };
  }
  return options as Partial<IngestServiceOptions>;
}
