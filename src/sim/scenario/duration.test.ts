import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { formatDuration, parseDuration } from "./duration.js";

describe("parseDuration", () => {
  it("reads seconds, minutes, hours, days and mixes", () => {
    expect(["90s", "30m", "3h", "1h30m", "2d", "45", 12].map((text) => parseDuration(text))).toEqual([
      90, 1800, 10800, 5400, 172800, 45, 12,
    ]);
  });

  it("names the field and the expected form", () => {
    expect(() => parseDuration("3 hours", "--duration")).toThrow(
      expect.objectContaining({ name: "DurationError", field: "--duration", value: "3 hours" }),
    );
    expect(() => parseDuration(0, "step")).toThrow(
      expect.objectContaining({
        name: "DurationError",
        field: "step",
        value: 0,
        allowed: "a positive number of seconds",
      }),
    );
  });

  it("formats whole seconds back to what it parses", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 10_000_000 }), (s) => parseDuration(formatDuration(s)) === s),
    );
  });
});
