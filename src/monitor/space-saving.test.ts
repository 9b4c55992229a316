import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { SpaceSaving } from "./space-saving.js";

describe("SpaceSaving", () => {
  it("counts exactly while the items fit", () => {
    const sketch = new SpaceSaving(4);
    for (const item of ["a", "b", "a", "c", "a", "b"]) sketch.offer(item);
    expect(sketch.top(2)).toEqual([
      { item: "a", count: 3, error: 0 },
      { item: "b", count: 2, error: 0 },
    ]);
    expect(sketch.total).toBe(6);
  });

  it("keeps every item above total/capacity, with count − error ≤ truth ≤ count", () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.integer({ min: 0, max: 30 }), fc.integer({ min: 1, max: 5 })), {
          maxLength: 400,
        }),
        fc.integer({ min: 1, max: 8 }),
        (stream, capacity) => {
          const sketch = new SpaceSaving(capacity);
          const truth = new Map<string, number>();
          for (const [id, weight] of stream) {
            const item = `p${id}`;
            sketch.offer(item, weight);
            truth.set(item, (truth.get(item) ?? 0) + weight);
          }
          const kept = new Map(sketch.top().map((hitter) => [hitter.item, hitter]));
          for (const [item, count] of truth) {
            if (count > sketch.total / capacity) expect(kept.has(item)).toBe(true);
          }
          for (const hitter of kept.values()) {
            const real = truth.get(hitter.item) ?? 0;
            expect(hitter.count).toBeGreaterThanOrEqual(real);
            expect(hitter.count - hitter.error).toBeLessThanOrEqual(real);
          }
        },
      ),
    );
  });

  it("rejects a bad capacity or weight by name", () => {
    expect(() => new SpaceSaving(0)).toThrow(/capacity 0/);
    expect(() => new SpaceSaving(2).offer("x", -1)).toThrow(/weight -1 for "x"/);
  });

  it("forgets everything on reset", () => {
    const sketch = new SpaceSaving(2);
    sketch.offer("a", 5);
    sketch.reset();
    expect(sketch.top()).toEqual([]);
    expect(sketch.total).toBe(0);
  });
});
