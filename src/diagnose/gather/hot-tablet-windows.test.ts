import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { hotTabletWindows, MAX_LOOK_BACK_S, MAX_REQUEST_WINDOW_S } from "./hot-tablet-windows.js";

const now = new Date("2026-12-01T12:00:00Z");

describe("hotTabletWindows", () => {
  it("covers the look-back exactly, in windows of at most 48 h, oldest first", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: MAX_LOOK_BACK_S }), (sinceS) => {
        const windows = hotTabletWindows(sinceS, now);
        expect(windows[0]!.start.getTime()).toBe(now.getTime() - sinceS * 1000);
        expect(windows.at(-1)!.end).toEqual(now);
        for (const [index, window] of windows.entries()) {
          const span = window.end.getTime() - window.start.getTime();
          expect(span).toBeGreaterThan(0);
          expect(span).toBeLessThanOrEqual(MAX_REQUEST_WINDOW_S * 1000);
          if (index > 0) expect(window.start).toEqual(windows[index - 1]!.end);
        }
      }),
    );
  });

  it("refuses a look-back beyond 14 days, naming the limit", () => {
    expect(() => hotTabletWindows(MAX_LOOK_BACK_S + 1, now)).toThrow(/--since .*14 days/);
    expect(() => hotTabletWindows(0, now)).toThrow(/--since/);
  });
});
