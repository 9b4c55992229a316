/**
 * Space-Saving heavy hitters (Metwally, Agrawal, El Abbadi 2005): the top items of a stream in
 * `capacity` counters. Every item whose true count exceeds total / capacity is kept; a kept item's
 * count overestimates the truth by at most its `error`. Weighted offers keep the same guarantee, so
 * callers can pre-aggregate a batch and offer each distinct item once. Pure.
 *
 * Counters sit in a binary min-heap so the one to evict (the smallest) is found in O(log capacity).
 */
export interface HeavyHitter {
  item: string;
  /** Estimated count: the true count plus at most `error`. */
  count: number;
  /** Overestimation bound inherited from the evicted counter. */
  error: number;
}

export class SpaceSaving {
  /** Stream weight offered so far. */
  total = 0;
  private readonly heap: HeavyHitter[] = [];
  private readonly position = new Map<string, number>();

  constructor(readonly capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 1) {
      throw new RangeError(`capacity ${capacity}: expected a positive integer`);
    }
  }

  offer(item: string, weight = 1): void {
    if (!(weight > 0)) throw new RangeError(`weight ${weight} for "${item}": expected a number > 0`);
    this.total += weight;
    const at = this.position.get(item);
    if (at !== undefined) {
      this.heap[at]!.count += weight;
      this.siftDown(at);
    } else if (this.heap.length < this.capacity) {
      this.heap.push({ item, count: weight, error: 0 });
      this.position.set(item, this.heap.length - 1);
      this.siftUp(this.heap.length - 1);
    } else {
      const smallest = this.heap[0]!;
      this.position.delete(smallest.item);
      this.heap[0] = { item, count: smallest.count + weight, error: smallest.count };
      this.position.set(item, 0);
      this.siftDown(0);
    }
  }

  /** The `n` largest counters, largest first. */
  top(n = this.capacity): HeavyHitter[] {
    return [...this.heap]
      .sort((a, b) => b.count - a.count || a.item.localeCompare(b.item))
      .slice(0, n)
      .map((entry) => ({ ...entry }));
  }

  reset(): void {
    this.total = 0;
    this.heap.length = 0;
    this.position.clear();
  }

  private siftUp(index: number): void {
    let at = index;
    while (at > 0) {
      const parent = (at - 1) >> 1;
      if (this.heap[parent]!.count <= this.heap[at]!.count) return;
      this.swap(at, parent);
      at = parent;
    }
  }

  private siftDown(index: number): void {
    let at = index;
    for (;;) {
      const left = 2 * at + 1;
      const right = left + 1;
      let smallest = at;
      if (left < this.heap.length && this.heap[left]!.count < this.heap[smallest]!.count) smallest = left;
      if (right < this.heap.length && this.heap[right]!.count < this.heap[smallest]!.count) smallest = right;
      if (smallest === at) return;
      this.swap(at, smallest);
      at = smallest;
    }
  }

  private swap(a: number, b: number): void {
    const first = this.heap[a]!;
    const second = this.heap[b]!;
    this.heap[a] = second;
    this.heap[b] = first;
    this.position.set(second.item, a);
    this.position.set(first.item, b);
  }
}
