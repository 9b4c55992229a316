/**
 * Prefix concentration shift, the fleet incident's "leading indicator": how far the share of traffic among
 * the hottest key prefixes moved between two windows, as the total variation distance (0 = same
 * mix, 1 = disjoint). Traffic outside the tracked prefixes counts as one "other" share. Pure.
 */
export type PrefixShares = ReadonlyMap<string, number>;

/** Shares of the total from counts of the top prefixes; the rest of `total` is "other". */
export function prefixShares(top: readonly { item: string; count: number }[], total: number): PrefixShares {
  const shares = new Map<string, number>();
  if (total <= 0) return shares;
  for (const { item, count } of top) shares.set(item, Math.min(count, total) / total);
  return shares;
}

export function concentrationShift(previous: PrefixShares, current: PrefixShares): number {
  let distance = 0;
  for (const [prefix, share] of current) distance += Math.abs(share - (previous.get(prefix) ?? 0));
  for (const [prefix, share] of previous) if (!current.has(prefix)) distance += share;
  distance += Math.abs(otherShare(current) - otherShare(previous));
  return Math.min(1, distance / 2);
}

function otherShare(shares: PrefixShares): number {
  let tracked = 0;
  for (const share of shares.values()) tracked += share;
  return Math.max(0, 1 - tracked);
}
