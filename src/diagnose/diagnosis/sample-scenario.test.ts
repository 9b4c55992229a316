import { describe, expect, it } from "vitest";
import { inferSampledKey, keySampleLines } from "./sample-scenario.js";

describe("the key sample for the advisor", () => {
  it("keeps printable keys as text and reads binary keys byte by byte", () => {
    expect(keySampleLines([Buffer.from("a#1"), Buffer.from("b#2")])).toEqual(["a#1", "b#2"]);
    expect(keySampleLines([Buffer.from([0x01, 0xff]), Buffer.from("b")])).toEqual(["\u0001\u00ff", "b"]);
  });

  it("infers the sampled key with the advisor's inference (a time-first key is sequential)", () => {
    const keys = Array.from({ length: 300 }, (_, i) =>
      Buffer.from(`${1_772_000_000_000 + i * 1000}#dev${i % 7}`),
    );
    const inferred = inferSampledKey(keys)!;
    expect(inferred.structure.sequential?.kind).toBe("timestamp");
    expect(inferSampledKey([])).toBeUndefined();
  });
});
