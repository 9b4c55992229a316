/**
 * Tablets: contiguous key ranges `[start, next.start)`, each served by one node, kept sorted. A
 * split keeps both halves on the node that served the whole (moving one is the balancer's job).
 */

export interface Tablet {
  start: Buffer;
  node: number;
  bytes: number;
  /** Step time since which the tablet's load has stayed over the split threshold, or null. */
  hotSince: number | null;
  /** Cost (node-seconds) served since the last balancer run. */
  periodCost: number;
  /** A size split that found no split point is retried only once the tablet outgrows this. */
  sizeRetryBytes: number;
  /** Writes, range reads, rows read and bytes moved since the last time-series sample (sums of rate × step). */
  window: [writes: number, rangeReads: number, rows: number, bytes: number];
}

export interface SplitCandidate {
  key: Buffer;
  weight: number;
}

export class TabletMap {
  readonly tablets: Tablet[] = [];
  /** Bumps whenever tablet indices change, so callers can cache lookups. */
  version = 0;
  splits = { load: 0, size: 0 };

  /** `boundaries` are the starts of tablets 2..n (sorted, distinct, non-empty); `nodeOf(i)` places tablet i. */
  constructor(boundaries: Buffer[], nodeOf: (index: number) => number) {
    const starts = [Buffer.alloc(0), ...boundaries];
    starts.forEach((start, index) => {
      this.tablets.push({
        start,
        node: nodeOf(index),
        bytes: 0,
        hotSince: null,
        periodCost: 0,
        sizeRetryBytes: 0,
        window: [0, 0, 0, 0],
      });
    });
  }

  /** Index of the tablet holding `key`. */
  find(key: Buffer): number {
    let low = 0;
    let high = this.tablets.length - 1;
    while (low < high) {
      const middle = (low + high + 1) >> 1;
      if (Buffer.compare(this.tablets[middle]!.start, key) <= 0) low = middle;
      else high = middle - 1;
    }
    return low;
  }

  end(index: number): Buffer | null {
    return this.tablets[index + 1]?.start ?? null;
  }

  /**
   * Splits tablet `index` at the candidate that halves the candidates' weight, and returns whether
   * it could: a tablet whose weight sits on one key (one row) cannot be split.
   */
  split(index: number, candidates: SplitCandidate[], reason: "load" | "size"): boolean {
    const tablet = this.tablets[index]!;
    const inside = mergeEqualKeys(
      candidates.filter((candidate) => Buffer.compare(candidate.key, tablet.start) > 0),
    );
    const total = candidates.reduce((sum, candidate) => sum + candidate.weight, 0);
    if (inside.length === 0 || total <= 0) return false;
    let before = total - inside.reduce((sum, candidate) => sum + candidate.weight, 0);
    let best: { key: Buffer; leftWeight: number } | null = null;
    for (const candidate of inside) {
      const closer = best === null || Math.abs(before - total / 2) < Math.abs(best.leftWeight - total / 2);
      if (before > 0 && closer) best = { key: candidate.key, leftWeight: before };
      before += candidate.weight;
    }
    if (best === null) return false;
    const leftShare = best.leftWeight / total;
    const right: Tablet = {
      start: best.key,
      node: tablet.node,
      bytes: tablet.bytes * (1 - leftShare),
      hotSince: null,
      periodCost: tablet.periodCost * (1 - leftShare),
      sizeRetryBytes: 0,
      window: tablet.window.map((sum) => sum * (1 - leftShare)) as Tablet["window"],
    };
    tablet.window = tablet.window.map((sum) => sum * leftShare) as Tablet["window"];
    tablet.bytes *= leftShare;
    tablet.periodCost *= leftShare;
    tablet.hotSince = null;
    this.tablets.splice(index + 1, 0, right);
    this.version++;
    this.splits[reason]++;
    return true;
  }
}

/** Sorted by key, one entry per distinct key with the summed weight. */
function mergeEqualKeys(candidates: SplitCandidate[]): SplitCandidate[] {
  const sorted = [...candidates].sort((a, b) => Buffer.compare(a.key, b.key));
  const merged: SplitCandidate[] = [];
  for (const candidate of sorted) {
    const last = merged[merged.length - 1];
    if (last?.key.equals(candidate.key)) last.weight += candidate.weight;
    else merged.push({ ...candidate });
  }
  return merged;
}
