/**
 * Per-tenant admission control: a token bucket per tenant, refilled at its quota (points/s) up to
 * its burst. A request is admitted whole or refused whole; refusals say when to retry. Hand-written
 * (twenty lines, clock injected for tests) because the packages on npm meter requests, not a
 * per-request cost in points, or pull in timers per key. Buckets are kept per tenant label
 * (`tenant-labels.ts`): tenants past the `maxTenants` cap share the `(other)` bucket, so inventing
 * tenant names buys no extra quota and no memory.
 *
 * Several replicas behind a load balancer share each quota: each admits `rate / replicas` (and
 * `burst / replicas`), `replicas` being the live count in the table's registry at each request.
 * Round-robin balancing gives each replica about a third of a tenant's traffic, so the total
 * admitted is the quota; a tenant whose traffic all reaches one replica gets only that replica's
 * share (the quota divided, never multiplied).
 */
import { OTHER_TENANTS, TenantLabels } from "./tenant-labels.js";

export interface TenantQuota {
  /** Sustained points per second. */
  rate: number;
  /** Points a tenant may send at once after being idle (default: one second's worth). */
  burst?: number;
}

export interface TenantQuotaConfig {
  /** Applies to every tenant without its own entry; omit for no limit. */
  default?: TenantQuota;
  tenants?: Record<string, TenantQuota>;
}

export type Admission =
  /** `perLabel`: the request's points by tenant label, as charged. */
  | { admitted: true; perLabel: Map<string, number> }
  | {
      admitted: false;
      tenant: string;
      /** `over-burst` (413): more points in one request than the bucket holds; `over-quota` (429): retry later. */
      reason: "over-burst" | "over-quota";
      status: 413 | 429;
      retryAfterSeconds: number;
      message: string;
    };

/** A quota that cannot apply: the `quota` entry (a tenant, `default`, or the text given), its `field` at fault, the `value` given and what is `allowed`. */
export class TenantQuotaError extends RangeError {
  override readonly name = "TenantQuotaError";
  constructor(
    readonly quota: string,
    readonly field: "entry" | "rate" | "burst",
    readonly value: string | number,
    readonly allowed: string,
    message: string,
  ) {
    super(message);
  }
}

interface Bucket {
  tokens: number;
  updatedMs: number;
  rate: number;
  burst: number;
}

export class TenantAdmission {
  private readonly buckets = new Map<string, Bucket>();
  /** Tenants refused since the last `takeRefused`. */
  private refused = new Set<string>();

  constructor(
    private readonly config: TenantQuotaConfig,
    private readonly now: () => number = Date.now,
    readonly labels: TenantLabels = new TenantLabels(Object.keys(config.tenants ?? {})),
    /** Replicas sharing the quotas (this one included). */
    private readonly replicas: () => number = () => 1,
  ) {
    for (const [name, quota] of Object.entries({ default: config.default, ...config.tenants })) {
      if (quota === undefined) continue;
      if (!(quota.rate > 0)) {
        throw new TenantQuotaError(
          name,
          "rate",
          quota.rate,
          "> 0",
          `quota ${name}: rate ${quota.rate}; expected points/s > 0`,
        );
      }
      if (quota.burst !== undefined && !(quota.burst >= 1)) {
        throw new TenantQuotaError(
          name,
          "burst",
          quota.burst,
          "≥ 1",
          `quota ${name}: burst ${quota.burst}; expected ≥ 1 point`,
        );
      }
    }
  }

  /**
   * Takes `points` tokens from each tenant's bucket, or none at all when any tenant lacks them.
   * `demand`: points per tenant. Tenants get their labels (and buckets) only when admitted; a
   * refused tenant not tracked yet is reported as `(other)`, so refusals cannot grow the labels.
   */
  admit(demand: ReadonlyMap<string, number>): Admission {
    const labels = this.labels.plan(demand.keys());
    const perLabel = new Map<string, number>();
    for (const [tenant, points] of demand) {
      const label = labels.get(tenant)!;
      perLabel.set(label, (perLabel.get(label) ?? 0) + points);
    }
    const nowMs = this.now();
    const charged: [string, Bucket, number][] = [];
    for (const [label, points] of perLabel) {
      const bucket = this.bucketOf(label, nowMs);
      if (bucket === undefined) continue;
      if (points > bucket.burst || points > bucket.tokens) return this.refuse(label, points, bucket);
      charged.push([label, bucket, points]);
    }
    for (const [label, bucket, points] of charged) {
      bucket.tokens -= points;
      this.buckets.set(label, bucket);
    }
    this.labels.track(labels);
    return { admitted: true, perLabel };
  }

  private refuse(label: string, points: number, bucket: Bucket): Admission {
    const tenant = this.labels.isTracked(label) ? label : OTHER_TENANTS;
    this.refused.add(tenant);
    if (points > bucket.burst) {
      return {
        admitted: false,
        tenant,
        reason: "over-burst",
        status: 413,
        retryAfterSeconds: 0,
        message: `${describeTenant(label)}: ${points} points in one request exceed its burst of ${bucket.burst}; split the request`,
      };
    }
    const waitSeconds = (points - bucket.tokens) / bucket.rate;
    return {
      admitted: false,
      tenant,
      reason: "over-quota",
      status: 429,
      retryAfterSeconds: Math.max(1, Math.ceil(waitSeconds)),
      message: `${describeTenant(label)} is over its quota of ${bucket.rate} points/s`,
    };
  }

  /** Points/s this replica admits now, per tenant with a quota of its own (and `default`): the per-replica shares sum to the quota. */
  shares(): Map<string, number> {
    const replicas = this.replicaCount();
    const shares = new Map<string, number>();
    if (this.config.default) shares.set("default", this.config.default.rate / replicas);
    for (const [tenant, quota] of Object.entries(this.config.tenants ?? {}))
      shares.set(tenant, quota.rate / replicas);
    return shares;
  }

  /** Tenants refused since the last call (the alert rule's input). */
  takeRefused(): Set<string> {
    const refused = this.refused;
    this.refused = new Set();
    return refused;
  }

  /** The label's bucket refilled to now at this replica's share; a new label's is full, and kept only once charged. */
  private bucketOf(label: string, nowMs: number): Bucket | undefined {
    const { tenants } = this.config;
    const own = tenants !== undefined && Object.hasOwn(tenants, label) ? tenants[label] : undefined;
    const quota = own ?? this.config.default;
    if (quota === undefined) return undefined;
    const replicas = this.replicaCount();
    const rate = quota.rate / replicas;
    const burst = (quota.burst ?? quota.rate) / replicas;
    const bucket = this.buckets.get(label);
    if (bucket === undefined) return { tokens: burst, updatedMs: nowMs, rate, burst };
    const elapsedMs = nowMs - bucket.updatedMs;
    bucket.rate = rate;
    bucket.burst = burst;
    bucket.tokens = Math.min(burst, bucket.tokens + Math.max(0, (elapsedMs * rate) / 1000));
    if (elapsedMs > 0) bucket.updatedMs = nowMs;
    return bucket;
  }

  private replicaCount(): number {
    return Math.max(1, this.replicas());
  }
}

function describeTenant(label: string): string {
  return label === OTHER_TENANTS
    ? "tenants past the --max-tenants cap (sharing one quota)"
    : `tenant ${label}`;
}

/** Parses `--quota` text: `default=50000` or `acme=100000:200000` (rate[:burst]), comma-separated. */
export function parseTenantQuotas(text: string): TenantQuotaConfig {
  const config: TenantQuotaConfig = { tenants: {} };
  for (const entry of text
    .split(",")
    .map((part) => part.trim())
    .filter(Boolean)) {
    const match = /^([A-Za-z0-9._-]{1,64})=(\d+(?:\.\d+)?)(?::(\d+))?$/.exec(entry);
    if (!match) {
      const allowed = "TENANT=RATE or TENANT=RATE:BURST (points/s), or default=RATE";
      throw new TenantQuotaError(entry, "entry", entry, allowed, `quota "${entry}": expected ${allowed}`);
    }
    const quota: TenantQuota = { rate: Number(match[2]) };
    if (match[3] !== undefined) quota.burst = Number(match[3]);
    // defineProperty: a tenant named "__proto__" is a tenant, not the object's prototype.
    if (match[1] === "default") config.default = quota;
    else Object.defineProperty(config.tenants, match[1]!, { value: quota, enumerable: true });
  }
  return config;
}
