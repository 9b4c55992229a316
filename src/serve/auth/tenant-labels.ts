/**
 * Which tenants the service tracks by name — in metric labels, admission buckets and alerts — so
 * that inventing tenant names can neither grow `/metrics` and memory without bound nor buy a fresh
 * quota per name. Tenants named in the quota config or in the credentials file always have their
 * own name; of the others, the first `maxTenants` seen do, and every later one is counted under
 * `(other)` (a name no tenant can have) and shares one admission bucket at the default quota.
 */
export const OTHER_TENANTS = "(other)";
export const DEFAULT_MAX_TENANTS = 1000;

export class TenantLabels {
  private readonly seen = new Set<string>();
  private known: ReadonlySet<string>;

  constructor(
    known: Iterable<string> = [],
    readonly maxTenants: number = DEFAULT_MAX_TENANTS,
  ) {
    if (!(Number.isInteger(maxTenants) && maxTenants >= 0)) {
      throw new RangeError(`maxTenants ${maxTenants}: expected a whole number ≥ 0`);
    }
    this.known = new Set(known);
  }

  /** Replaces the tenants that always keep their name (the credentials file was reloaded). */
  setKnown(known: Iterable<string>): void {
    this.known = new Set(known);
  }

  /**
   * The label each of `tenants` would get, without tracking a new name: the names take the free
   * slots in order, the rest are `(other)`. Only `track` takes slots, once a request is admitted,
   * so a refused request naming a thousand invented tenants takes none.
   */
  plan(tenants: Iterable<string>): Map<string, string> {
    const labels = new Map<string, string>();
    let free = this.maxTenants - this.seen.size;
    for (const tenant of tenants) {
      if (labels.has(tenant)) continue;
      if (this.isTracked(tenant)) labels.set(tenant, tenant);
      else if (free > 0) {
        free--;
        labels.set(tenant, tenant);
      } else labels.set(tenant, OTHER_TENANTS);
    }
    return labels;
  }

  /** Takes the slots a `plan` gave (the request was admitted). */
  track(labels: ReadonlyMap<string, string>): void {
    for (const [tenant, label] of labels) {
      if (label === tenant && !this.isTracked(tenant) && this.seen.size < this.maxTenants)
        this.seen.add(tenant);
    }
  }

  /** Whether the tenant has its own label already. */
  isTracked(tenant: string): boolean {
    return this.known.has(tenant) || this.seen.has(tenant);
  }
}
