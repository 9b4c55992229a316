import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { parseScenario } from "../../sim/scenario/scenario.js";
import { adviseScenario } from "../judge/advise.js";
import { enumerateCandidates } from "../judge/candidates.js";
import { AdviseOptionError, KeySampleError } from "./advise-errors.js";
import { parseKeyLines } from "./key-sample.js";
import { parseWorkloadRates } from "./rates.js";

const orders = parseScenario(readFileSync(new URL("../../../examples/orders.yaml", import.meta.url), "utf8"));

/** The error `run` throws (it must throw). */
function thrown(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  throw new Error("expected a throw");
}

describe("the advisor's refusals", () => {
  it("name the option, the value given and what is allowed", () => {
    const cases: [() => unknown, string, string][] = [
      [() => adviseScenario(orders, { nodes: 0 }), "nodes", "0"],
      [() => adviseScenario(orders, { growth: 0.5 }), "growth", "0.5"],
      [() => adviseScenario(orders, { baseline: "nope" }), "baseline", "nope"],
      [() => enumerateCandidates(orders, orders.designs[0]!, { nodes: 6, buckets: [1] }), "buckets", "1"],
      [() => parseWorkloadRates("writes=10,latest=5"), "--rates", "latest"],
      [() => parseWorkloadRates("writes=-1"), "--rates", "writes=-1"],
      [() => parseWorkloadRates("latest-100=5"), "--rates", "latest-100=5"],
    ];
    for (const [run, option, value] of cases) {
      const error = thrown(run);
      expect(error).toBeInstanceOf(AdviseOptionError);
      expect(error).toMatchObject({ name: "AdviseOptionError", option, value });
      expect((error as AdviseOptionError).allowed.length).toBeGreaterThan(0);
    }
    expect(
      (thrown(() => adviseScenario(orders, { baseline: "nope" })) as AdviseOptionError).allowed,
    ).toContain("as-is");
  });

  it("name the line of a key sample it cannot read", () => {
    const unprintable = thrown(() => parseKeyLines("order#1\norder#\u0001\n", "text"));
    expect(unprintable).toBeInstanceOf(KeySampleError);
    expect(unprintable).toMatchObject({ name: "KeySampleError", line: 2 });
    expect(thrown(() => parseKeyLines("0a\nzz\n", "hex"))).toMatchObject({ name: "KeySampleError", line: 2 });
    const empty = thrown(() => parseKeyLines("\n\n", "text"));
    expect(empty).toMatchObject({ name: "KeySampleError", line: undefined });
  });
});
