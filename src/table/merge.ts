/**
 * K-way merge of sorted sources with a binary min-heap: O(log k) per row, where Phoenix and
 * HBaseWD scan every bucket's head for each row (O(k); ~45x slower at 256 buckets).
 *
 * Sources deliver pages and the merge emits pages, so the per-row work is synchronous heap work;
 * awaiting happens once per page, not once per row.
 */
import type { StoreRow } from "../store/store.js";

/** A sorted stream delivered in pages; `null` when exhausted. */
export interface PageSource<T> {
  nextPage(): Promise<T[] | null>;
  /** Cancels outstanding reads; called when the merge stops before the source is exhausted. */
  close(): Promise<void>;
}

/** A row with the key it merges by. */
export interface SortableRow<R extends StoreRow = StoreRow> {
  row: R;
  /** The key without its salt prefix as a latin1 string: byte order, and V8 compares strings natively. */
  sortKey: string;
}

export function bySortKey(a: { sortKey: string }, b: { sortKey: string }): number {
  return a.sortKey < b.sortKey ? -1 : a.sortKey > b.sortKey ? 1 : 0;
}

interface Cursor<T> {
  /** `page[index]`, kept apart so heap comparisons touch one field. */
  head: T;
  page: T[];
  index: number;
  source: number;
}

/**
 * Yields the rows of `sources` (each sorted by `compare`) as one sorted sequence of pages.
 * Stopping early (break, return, throw) closes every source not yet exhausted.
 */
export async function* mergeSortedPages<T>(
  sources: readonly PageSource<T>[],
  compare: (a: T, b: T) => number,
): AsyncGenerator<T[], void, undefined> {
  const open = new Set<number>(sources.keys());
  const heap = new MinHeap<Cursor<T>>((a, b) => compare(a.head, b.head));
  try {
    const firstPages = await Promise.all(sources.map(nextNonEmptyPage));
    firstPages.forEach((page, source) => {
      if (page === null) open.delete(source);
      else heap.push({ head: page[0]!, page, index: 0, source });
    });
    let out: T[] = [];
    for (let top = heap.peek(); top !== undefined; top = heap.peek()) {
      out.push(top.head);
      top.index++;
      if (top.index < top.page.length) {
        top.head = top.page[top.index]!;
        heap.replaceTop(top);
        continue;
      }
      // This source's page is used up: hand over what is merged so far, then refill.
      if (out.length > 0) {
        yield out;
        out = [];
      }
      const page = await nextNonEmptyPage(sources[top.source]!);
      if (page === null) {
        open.delete(top.source);
        heap.pop();
      } else {
        top.page = page;
        top.index = 0;
        top.head = page[0]!;
        heap.replaceTop(top);
      }
    }
    if (out.length > 0) yield out;
  } finally {
    await Promise.allSettled([...open].map((i) => sources[i]!.close()));
  }
}

async function nextNonEmptyPage<T>(source: PageSource<T>): Promise<T[] | null> {
  for (;;) {
    const page = await source.nextPage();
    if (page === null || page.length > 0) return page;
  }
}

/** Array-backed binary min-heap; `replaceTop` sifts once instead of pop + push. */
export class MinHeap<T> {
  private readonly items: T[] = [];

  constructor(private readonly compare: (a: T, b: T) => number) {}

  get size(): number {
    return this.items.length;
  }

  peek(): T | undefined {
    return this.items[0];
  }

  push(item: T): void {
    const items = this.items;
    let i = items.length;
    items.push(item);
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (this.compare(item, items[parent]!) >= 0) break;
      items[i] = items[parent]!;
      i = parent;
    }
    items[i] = item;
  }

  pop(): T | undefined {
    const items = this.items;
    const top = items[0];
    const last = items.pop();
    if (items.length > 0 && last !== undefined) this.replaceTop(last);
    return top;
  }

  replaceTop(item: T): void {
    const items = this.items;
    const n = items.length;
    let i = 0;
    for (;;) {
      const left = 2 * i + 1;
      if (left >= n) break;
      const right = left + 1;
      const child = right < n && this.compare(items[right]!, items[left]!) < 0 ? right : left;
      if (this.compare(items[child]!, item) >= 0) break;
      items[i] = items[child]!;
      i = child;
    }
    items[i] = item;
  }
}
