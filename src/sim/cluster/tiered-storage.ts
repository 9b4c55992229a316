/**
 * Tiered storage (Preview; Google Cloud, "Tiered storage overview",
 * https://cloud.google.com/bigtable/docs/tiered-storage): a cell whose timestamp is older than the
 * table's threshold (at least 30 days) moves from SSD to the infrequent-access tier — by age, not by
 * how often it is read. A node then holds up to 32 TB (Enterprise), of which at most 5 TB on SSD
 * ("Choose between SSD and HDD storage"); the infrequent tier reads up to 100 rows/s and scans
 * 36 MB/s per node ("Understand performance"), at low double-digit milliseconds. Constants and
 * their sources: model-constants.ts. Pure.
 *
 * Writes arrive at a steady rate, so over a retention R the bytes are spread evenly over age: the
 * share older than the threshold T is (R − T) / R, and none younger than T ever moves.
 */

export interface TieredPlan {
  coldAfterS: number;
  retentionS: number;
  /** Share of each limit planned for (the same share an SSD node is planned at). */
  share: number;
  ssdBytesPerNode: number;
  tieredBytesPerNode: number;
}

/** Share of the bytes kept that is older than the threshold (in the infrequent tier). */
export function coldShare(coldAfterS: number, retentionS: number): number {
  return retentionS <= coldAfterS ? 0 : (retentionS - coldAfterS) / retentionS;
}

/** The tier a cell of age `ageS` sits in: it moves only once it is older than the threshold. */
export function tierOf(ageS: number, coldAfterS: number): "ssd" | "infrequent" {
  return ageS > coldAfterS ? "infrequent" : "ssd";
}

/** Bytes on SSD and in the infrequent tier for `bytes` kept evenly over the retention. */
export function tieredBytes(bytes: number, plan: Pick<TieredPlan, "coldAfterS" | "retentionS">) {
  const cold = bytes * coldShare(plan.coldAfterS, plan.retentionS);
  return { ssd: bytes - cold, infrequent: cold };
}

/** Fewest nodes (fractional) holding the SSD part within the SSD limit and all of it within the tiered limit. */
export function tieredNodesFractional(bytes: number, plan: TieredPlan): number {
  const { ssd } = tieredBytes(bytes, plan);
  return Math.max(ssd / (plan.ssdBytesPerNode * plan.share), bytes / (plan.tieredBytesPerNode * plan.share));
}

/** Fewest whole nodes (at least one) holding `bytes` in both tiers. */
export function tieredNodesNeeded(bytes: number, plan: TieredPlan): number {
  return Math.max(1, Math.ceil(tieredNodesFractional(bytes, plan) - 1e-9));
}

/** The infrequent tier's rates per node (1 KB rows). */
export interface ColdRates {
  readsPerS: number;
  scanBytesPerS: number;
}

/** What the declared reads ask of the infrequent tier: rows read per second and bytes scanned per second from cells older than the threshold. */
export interface ColdDemand {
  rowsPerS: number;
  scanBytesPerS: number;
}

/** Whether `nodes` serve the cold reads within the infrequent tier's rates, each at most `share` used. */
export function coldReadsFit(demand: ColdDemand, rates: ColdRates, nodes: number, share: number): boolean {
  return (
    demand.rowsPerS <= rates.readsPerS * nodes * share + 1e-9 &&
    demand.scanBytesPerS <= rates.scanBytesPerS * nodes * share + 1e-9
  );
}
