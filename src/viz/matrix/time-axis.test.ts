import { describe, expect, it } from "vitest";
import { niceTimeAxis, timeLabel, timeTicks } from "./time-axis.js";

describe("time axis", () => {
  it("picks nice column widths", () => {
    expect(niceTimeAxis(0, 600, 120, false)).toMatchObject({ startS: 0, columnS: 10, columns: 61 });
  });

  it("labels simulated time in s, m or h, and logs on the UTC clock", () => {
    expect([0, 90, 720, 3600, 9000].map((s) => timeLabel(s, false, 3600))).toEqual([
      "0s",
      "90s",
      "12m",
      "60m",
      "2.5h",
    ]);
    const at = Date.UTC(2026, 10, 30, 6, 5, 30) / 1000;
    expect(timeLabel(at, true, 60)).toBe("06:05:30");
    expect(timeLabel(at, true, 3600)).toBe("06:05");
    expect(timeLabel(at, true, 3 * 86400)).toBe("11-30 06:05");
  });

  it("ticks on multiples of a nice step, from any view start", () => {
    expect(timeTicks(0, 3600, false).map((tick) => tick.label)).toEqual([
      "0s",
      "10m",
      "20m",
      "30m",
      "40m",
      "50m",
      "60m",
    ]);
    // A zoomed view from 12 min 30 s for 5 min: ticks on whole minutes, placed from the view's start.
    const zoomed = timeTicks(750, 300, false);
    expect(zoomed.map((tick) => tick.label)).toEqual(["13m", "14m", "15m", "16m", "17m"]);
    expect(zoomed[0]!.offsetS).toBe(30);
  });
});
