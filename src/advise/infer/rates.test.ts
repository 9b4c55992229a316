import { describe, expect, it } from "vitest";
import { parseWorkloadRates } from "./rates.js";

describe("--rates", () => {
  it("reads writes and the read patterns", () => {
    expect(parseWorkloadRates("writes=180000, latest-100=8000/s, range-30d=0.1, get=500, get-1h=2")).toEqual({
      writesPerS: 180000,
      reads: [
        { kind: "latest", name: "latest-100", limit: 100, perS: 8000 },
        { kind: "scan", name: "range-30d", windowS: 30 * 86400, perS: 0.1 },
        { kind: "get", name: "get", perS: 500 },
        { kind: "get", name: "get-1h", windowS: 3600, perS: 2 },
      ],
    });
  });

  it("names what is wrong and what is allowed", () => {
    // Well-formed, but no writes.
    expect(() => parseWorkloadRates("latest-10=5")).toThrow(
      expect.objectContaining({ name: "AdviseOptionError", option: "--rates", value: "latest-10=5" }),
    );
    expect(() => parseWorkloadRates("writes=1, writes=0")).toThrow(
      expect.objectContaining({ name: "AdviseOptionError", option: "--rates", value: "writes=0" }),
    );
    expect(() => parseWorkloadRates("writes=1,top-5=3")).toThrow(
      expect.objectContaining({ name: "AdviseOptionError", option: "--rates", value: "top-5" }),
    );
    expect(() => parseWorkloadRates("writes=1,latest-x=3")).toThrow(/unknown "latest-x"/);
  });
});
