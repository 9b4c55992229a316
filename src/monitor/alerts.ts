/**
 * The fleet incident's alert rules, evaluated on snapshots the caller takes (no clock, no I/O):
 * - `bucket-hot` / `node-hot`: a salt bucket, or a simulated node, above `factor` × the median
 *   load for `sustainMs` (the fleet incident: 2× for 15 minutes);
 * - `prefix-shift`: the hottest prefixes' share of traffic moved by ≥ `shiftThreshold` (total
 *   variation distance) between consecutive windows;
 * - `tenant-over-quota`: a tenant's admission was refused in the window;
 * - `dead-letter`: the store refused rows (or log records were unreadable) in the window, and they
 *   went to the dead-letter file.
 * `evaluate` returns the transitions (firing / resolved) so the caller can log them; `active`
 * lists what fires now.
 */
import { median } from "../stats/median.js";
import { concentrationShift, type PrefixShares } from "./concentration-shift.js";

export type AlertRule = "bucket-hot" | "node-hot" | "prefix-shift" | "tenant-over-quota" | "dead-letter";

export interface AlertRulesConfig {
  /** A bucket is hot above this multiple of the median (the fleet incident: 2). */
  bucketFactor: number;
  /** ...for this long (the fleet incident: 15 minutes); tests use seconds. */
  sustainMs: number;
  /** Windows with less total bucket load than this are not judged (too little traffic). */
  minWindowLoad: number;
  /** Total variation distance between windows' prefix shares that counts as a shift. */
  shiftThreshold: number;
}

export const DEFAULT_ALERT_RULES: AlertRulesConfig = {
  bucketFactor: 2,
  sustainMs: 15 * 60_000,
  minWindowLoad: 100,
  shiftThreshold: 0.3,
};

export interface AlertSnapshot {
  nowMs: number;
  /** Load per bucket in the window just ended. */
  bucketLoad: readonly number[];
  /** Load per simulated node in the window just ended (absent: not judged). */
  nodeLoad?: readonly number[];
  /** Shares of the hottest prefixes in the window just ended (absent: not judged). */
  prefixShares?: PrefixShares;
  /** Tenants refused admission in the window just ended. */
  tenantsOverQuota: ReadonlySet<string>;
  /** Rows and log records dead-lettered in the window just ended (absent: none). */
  deadLetters?: number;
}

/** What a hot bucket's or node's alert rests on: its load over the window, the median's, the rule's factor and for how long. */
export interface HotUnitFigures {
  load: number;
  median: number;
  factor: number;
  forS: number;
}

/** What a prefix-shift alert rests on: the shift against its threshold, and the top prefix now. */
export interface PrefixShiftFigures {
  shift: number;
  threshold: number;
  topPrefix: string;
  topShare: number;
}

export interface Alert {
  rule: AlertRule;
  /** What the alert is about: a bucket number, a tenant, or `*` for the prefix mix. */
  subject: string;
  sinceMs: number;
  message: string;
  /** The numbers the message gives (hot units and prefix shifts). */
  figures?: HotUnitFigures | PrefixShiftFigures;
}

/** A bad rule setting: its name and value (each must be a number ≥ 0). */
export class AlertRuleError extends RangeError {
  override readonly name = "AlertRuleError";
  constructor(
    readonly rule: keyof AlertRulesConfig,
    readonly value: number,
  ) {
    super(`alert rule ${rule} is ${value}; expected a number ≥ 0`);
  }
}

export interface AlertChange extends Alert {
  state: "firing" | "resolved";
}

export class AlertEvaluator {
  private readonly config: AlertRulesConfig;
  private readonly firing = new Map<string, Alert>();
  /** When each bucket or node (`rule/index`) went above the threshold (cleared when it drops below). */
  private readonly hotSince = new Map<string, number>();
  private previousShares: PrefixShares | undefined;

  constructor(config: Partial<AlertRulesConfig> = {}) {
    this.config = { ...DEFAULT_ALERT_RULES, ...config };
    for (const [name, value] of Object.entries(this.config)) {
      if (!(Number.isFinite(value) && value >= 0))
        throw new AlertRuleError(name as keyof AlertRulesConfig, value);
    }
  }

  evaluate(snapshot: AlertSnapshot): AlertChange[] {
    const wanted = new Map<string, Omit<Alert, "sinceMs">>();
    const hot = [
      ...this.hotUnits("bucket-hot", "bucket", snapshot.bucketLoad, snapshot.nowMs),
      ...this.hotUnits("node-hot", "node", snapshot.nodeLoad ?? [], snapshot.nowMs),
    ];
    for (const alert of hot) wanted.set(`${alert.rule}/${alert.subject}`, alert);
    const shift = this.prefixShift(snapshot);
    if (shift) wanted.set(`${shift.rule}/*`, shift);
    for (const tenant of snapshot.tenantsOverQuota) {
      wanted.set(`tenant-over-quota/${tenant}`, {
        rule: "tenant-over-quota",
        subject: tenant,
        message: `tenant ${tenant} is over its ingest quota: requests are refused with 429`,
      });
    }
    if ((snapshot.deadLetters ?? 0) > 0) {
      wanted.set("dead-letter/*", {
        rule: "dead-letter",
        subject: "*",
        message: `${snapshot.deadLetters} rows or log records went to the dead-letter file: the store refused them`,
      });
    }
    const changes: AlertChange[] = [];
    for (const [id, alert] of this.firing) {
      if (!wanted.has(id)) {
        this.firing.delete(id);
        changes.push({ ...alert, state: "resolved" });
      }
    }
    for (const [id, alert] of wanted) {
      const current = this.firing.get(id);
      if (current) {
        current.message = alert.message;
        if (alert.figures) current.figures = alert.figures;
        continue;
      }
      const started = { ...alert, sinceMs: snapshot.nowMs };
      this.firing.set(id, started);
      changes.push({ ...started, state: "firing" });
    }
    return changes;
  }

  active(): Alert[] {
    return [...this.firing.values()].map((alert) => ({ ...alert }));
  }

  private hotUnits(
    rule: "bucket-hot" | "node-hot",
    unit: string,
    loads: readonly number[],
    nowMs: number,
  ): Omit<Alert, "sinceMs">[] {
    const total = loads.reduce((sum, load) => sum + load, 0);
    if (total < this.config.minWindowLoad) {
      // Too little traffic to judge: a quiet window neither starts nor breaks a streak.
      return [...this.firing.values()].filter((alert) => alert.rule === rule);
    }
    const middle = median(loads);
    const threshold = this.config.bucketFactor * middle;
    const hot: Omit<Alert, "sinceMs">[] = [];
    loads.forEach((load, index) => {
      const id = `${rule}/${index}`;
      if (load <= threshold) {
        this.hotSince.delete(id);
        return;
      }
      const since = this.hotSince.get(id) ?? nowMs;
      this.hotSince.set(id, since);
      if (nowMs - since < this.config.sustainMs) return;
      const figures = {
        load,
        median: middle,
        factor: this.config.bucketFactor,
        forS: Math.round((nowMs - since) / 1000),
      };
      hot.push({
        rule,
        subject: String(index),
        message: `${unit} ${index} took ${load} writes, above ${figures.factor}× the median (${middle}) for ${figures.forS} s`,
        figures,
      });
    });
    return hot;
  }

  private prefixShift(snapshot: AlertSnapshot): Omit<Alert, "sinceMs"> | undefined {
    const current = snapshot.prefixShares;
    if (current === undefined || current.size === 0) return undefined;
    const previous = this.previousShares;
    this.previousShares = current;
    if (previous === undefined || previous.size === 0) return undefined;
    const shift = concentrationShift(previous, current);
    if (shift < this.config.shiftThreshold) return undefined;
    const [top, share] = [...current].sort((a, b) => b[1] - a[1])[0]!;
    const threshold = this.config.shiftThreshold;
    return {
      rule: "prefix-shift",
      subject: "*",
      message:
        `hot key prefixes shifted by ${shift.toFixed(2)} (threshold ${threshold}); ` +
        `top prefix "${top}" now takes ${(share * 100).toFixed(1)} %`,
      figures: { shift, threshold, topPrefix: top, topShare: share },
    };
  }
}
