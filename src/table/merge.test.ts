import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { MinHeap, mergeSortedPages, type PageSource } from "./merge.js";

function pagedSource(
  values: number[],
  pageSize: number,
  closed: Set<number>,
  id: number,
): PageSource<number> {
  let offset = 0;
  return {
    nextPage: async () => {
      if (offset >= values.length) return null;
      const page = values.slice(offset, offset + pageSize);
      offset += pageSize;
      return page;
    },
    close: async () => {
      closed.add(id);
    },
  };
}

async function collect(pages: AsyncIterable<number[]>, limit = Number.POSITIVE_INFINITY): Promise<number[]> {
  const out: number[] = [];
  for await (const page of pages) {
    for (const value of page) {
      out.push(value);
      if (out.length >= limit) return out;
    }
  }
  return out;
}

const byValue = (a: number, b: number) => a - b;

describe("mergeSortedPages", () => {
  it("equals sorting the concatenation, whatever the paging", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.array(fc.integer({ min: -1000, max: 1000 }), { maxLength: 40 }), { maxLength: 12 }),
        fc.integer({ min: 1, max: 7 }),
        async (lists, pageSize) => {
          const sorted = lists.map((list) => [...list].sort(byValue));
          const sources = sorted.map((list, i) => pagedSource(list, pageSize, new Set(), i));
          const merged = await collect(mergeSortedPages(sources, byValue));
          expect(merged).toEqual(sorted.flat().sort(byValue));
        },
      ),
    );
  });

  it("closes the sources still open when the consumer stops early", async () => {
    const closed = new Set<number>();
    const sources = [0, 1, 2].map((i) => pagedSource([i, i + 10, i + 20], 1, closed, i));
    expect(await collect(mergeSortedPages(sources, byValue), 2)).toEqual([0, 1]);
    expect([...closed].sort()).toEqual([0, 1, 2]);
  });

  it("skips empty pages without ending the source", async () => {
    const pages = [[], [1], [], [3]];
    const source: PageSource<number> = {
      nextPage: async () => pages.shift() ?? null,
      close: async () => {},
    };
    expect(await collect(mergeSortedPages([source, pagedSource([2], 1, new Set(), 1)], byValue))).toEqual([
      1, 2, 3,
    ]);
  });
});

describe("MinHeap", () => {
  it("pops in ascending order", () => {
    fc.assert(
      fc.property(fc.array(fc.integer()), (values) => {
        const heap = new MinHeap(byValue);
        for (const v of values) heap.push(v);
        const out: number[] = [];
        while (heap.size > 0) out.push(heap.pop()!);
        expect(out).toEqual([...values].sort(byValue));
      }),
    );
  });
});
