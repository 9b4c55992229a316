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

  labelOf(tenant: string): string {
    if (this.known.has(tenant) || this.seen.has(tenant)) return tenant;
    if (this.seen.size < this.maxTenants) {
      this.seen.add(tenant);
      return tenant;
    }
    return OTHER_TENANTS;
  }
}
