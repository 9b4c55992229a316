/**
 * Feeds the pure monitor (src/monitor) from the write path and publishes what it finds: per-window
 * bucket loads and hot device-id prefixes go to the skew gauge, the Space-Saving top-N gauge and the
 * alert rules; alert transitions become log lines and the `keyspread_alert_active` gauge.
 */
import { type AlertChange, AlertEvaluator, type AlertRulesConfig } from "../../monitor/alerts.js";
import { bucketSkew } from "../../monitor/bucket-skew.js";
import { concentrationShift, type PrefixShares, prefixShares } from "../../monitor/concentration-shift.js";
import { SpaceSaving } from "../../monitor/space-saving.js";
import type { ServiceMetrics } from "./service-metrics.js";

/** Device-id characters that make a monitored prefix: enough for fleet patterns like `acme-0`. */
export const DEFAULT_PREFIX_LENGTH = 6;

export interface HotspotMonitorOptions {
  buckets: number;
  /** Device-id characters that make a prefix (default `DEFAULT_PREFIX_LENGTH`). */
  prefixLength?: number;
  /** Space-Saving counters (default 64) and how many prefixes to publish (default 10). */
  capacity?: number;
  topN?: number;
  rules?: Partial<AlertRulesConfig>;
  /**
   * Also judge load per simulated node: Bigtable serves contiguous key ranges per node, and the
   * salt buckets are contiguous ranges, so node n serves buckets [n·B/N, (n+1)·B/N).
   */
  nodes?: number;
}

export class HotspotMonitor {
  private bucketLoad: number[];
  private readonly prefixes: SpaceSaving;
  private readonly alerts: AlertEvaluator;
  private previousShares: PrefixShares | undefined;
  readonly prefixLength: number;
  private readonly topN: number;

  constructor(
    private options: HotspotMonitorOptions,
    private readonly metrics: ServiceMetrics,
    private readonly log: (line: string) => void,
  ) {
    this.bucketLoad = new Array(options.buckets).fill(0);
    this.prefixes = new SpaceSaving(options.capacity ?? 64);
    this.alerts = new AlertEvaluator(options.rules);
    this.prefixLength = options.prefixLength ?? DEFAULT_PREFIX_LENGTH;
    this.topN = options.topN ?? 10;
  }

  /** Points per device-id prefix of one request (pre-aggregated, offered once each). */
  observePrefixes(counts: ReadonlyMap<string, number>): void {
    for (const [prefix, count] of counts) this.prefixes.offer(prefix, count);
  }

  /** The table written changed its bucket count (a migration moved writes to a re-keyed table): start the window afresh. */
  useBuckets(buckets: number): void {
    if (buckets === this.bucketLoad.length) return;
    this.options = { ...this.options, buckets };
    this.bucketLoad = new Array(buckets).fill(0);
  }

  observeBucket(bucket: number, points: number): void {
    this.bucketLoad[bucket]! += points;
  }

  /** Closes the window: publishes gauges, evaluates the rules, returns the transitions. */
  endWindow(nowMs: number, tenantsOverQuota: ReadonlySet<string>, deadLetters = 0): AlertChange[] {
    const skew = bucketSkew(this.bucketLoad);
    this.metrics.bucketSkew.set(skew.skew);
    const top = this.prefixes.top(this.topN);
    const shares = prefixShares(top, this.prefixes.total);
    this.metrics.hotPrefixShare.reset();
    top.forEach(({ item }, rank) => {
      this.metrics.hotPrefixShare.set({ prefix: item, rank: String(rank + 1) }, shares.get(item) ?? 0);
    });
    if (shares.size > 0) {
      if (this.previousShares) this.metrics.prefixShift.set(concentrationShift(this.previousShares, shares));
      this.previousShares = shares;
    }
    const changes = this.alerts.evaluate({
      nowMs,
      bucketLoad: this.bucketLoad,
      nodeLoad: this.options.nodes === undefined ? undefined : nodeLoads(this.bucketLoad, this.options.nodes),
      prefixShares: shares.size > 0 ? shares : undefined,
      tenantsOverQuota,
      deadLetters,
    });
    for (const change of changes) {
      const labels = { rule: change.rule, subject: change.subject };
      if (change.state === "firing") this.metrics.alertActive.set(labels, 1);
      else this.metrics.alertActive.remove(labels);
      this.log(
        JSON.stringify({
          ts: new Date(nowMs).toISOString(),
          alert: change.rule,
          subject: change.subject,
          state: change.state,
          message: change.message,
        }),
      );
    }
    this.bucketLoad = new Array(this.options.buckets).fill(0);
    this.prefixes.reset();
    return changes;
  }

  activeAlerts() {
    return this.alerts.active();
  }
}

function nodeLoads(bucketLoad: readonly number[], nodes: number): number[] {
  const loads = new Array<number>(nodes).fill(0);
  bucketLoad.forEach((load, bucket) => {
    loads[Math.floor((bucket * nodes) / bucketLoad.length)]! += load;
  });
  return loads;
}
