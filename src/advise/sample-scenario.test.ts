import { describe, expect, it } from "vitest";
import { splitSample } from "./key-sample.js";
import { inferKeyStructure } from "./key-structure.js";
import { parseRates } from "./rates.js";
import { estimatePopulation, familiesOf, scenarioFromSample } from "./sample-scenario.js";

function scenarioOf(keys: string[]) {
  const sample = splitSample(keys);
  return scenarioFromSample(sample, inferKeyStructure(sample), {
    rates: parseRates("writes=1000,latest-10=5"),
    nodes: 4,
  });
}

describe("a scenario from a key sample", () => {
  it("keeps a salt already in the key, and models the writer as player and action", () => {
    const actions = ["purchase", "login", "logout", "levelup"];
    const keys = Array.from(
      { length: 800 },
      (_, k) =>
        `${String((k * 37) % 100).padStart(3, "0")}_player_${100000 + ((Math.imul(k, 2654435761) >>> 0) % 800000)}_${actions[k % 4]}_${1764000000 + k}`,
    );
    const scenario = scenarioOf(keys);
    const schema = scenario.designs[0]!.schema;
    expect(schema.salt).toEqual({ buckets: 100, width: 3 });
    expect(schema.separator).toBe("_");
    expect(schema.segments.map((s) => ("field" in s ? s.field : s.literal))).toEqual([
      "player",
      "player",
      "part",
      "ts",
    ]);
    expect(scenario.workload.groups[0]!.fields).toEqual({ player: "{i/4}", part: "{hex8:i%4}" });
  });

  it("models a sequence key as one writer with a counter", () => {
    const scenario = scenarioOf(
      Array.from({ length: 300 }, (_, k) => `txn${String(k + 1).padStart(10, "0")}`),
    );
    expect(scenario.workload.groups).toMatchObject([
      { entities: 1, fields: { seq: { sequence: { start: 1 } } } },
    ]);
  });

  it("refuses what it cannot model, saying what to do", () => {
    expect(() => scenarioOf(["a#1", "a#1"])).toThrow(/every key is the same/);
    const three = Array.from(
      { length: 400 },
      (_, k) => `u${k * 7}#d${k * 13}#s${k * 17}#${1764000000000 + k}`,
    );
    expect(() => scenarioOf(three)).toThrow(
      /3 components identify a writer .* describe the workload in a scenario file/,
    );
  });

  it("estimates a population from repeats and groups ids by shape", () => {
    expect(estimatePopulation(["a", "a", "b", "b", "c", "c"])).toBe(3);
    expect(estimatePopulation(["a", "b", "c", "d"])).toBeGreaterThan(4);
    const families = familiesOf(["acme-000001", "acme-000002", "3fa9c21b", "9b0e44d1"]);
    expect(families.map((family) => [family.label, family.template("")])).toEqual([
      ["acme-<digits>", "acme-{i:06}"],
      ["<8 hex>", "{hex8:i}"],
    ]);
  });
});
