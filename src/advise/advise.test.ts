import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { loadScenario } from "../sim/scenario.js";
import { type Advice, adviseScenario } from "./advise.js";
import { fleetKeys, userKeys } from "./fixtures.testsuite.js";
import { splitSample } from "./key-sample.js";
import { inferKeyStructure } from "./key-structure.js";
import { parseRates } from "./rates.js";
import { meets, simplicityOrder } from "./recommend.js";
import { scenarioFromSample } from "./sample-scenario.js";

const fleet = loadScenario(
  readFileSync(new URL("../../examples/fleet-hotspot.yaml", import.meta.url), "utf8"),
);

function fromSample(keys: string[], rates: string, nodes: number, entities: number) {
  const sample = splitSample(keys);
  return scenarioFromSample(sample, inferKeyStructure(sample), {
    rates: parseRates(rates),
    nodes,
    entities,
    rowBytes: 256,
  });
}

/** The recommendation meets the targets whenever any candidate does, and none that meets is simpler. */
function expectSoundRecommendation(advice: Advice): void {
  const meeting = advice.candidates.filter(meets);
  if (meeting.length === 0) return;
  const recommended = advice.recommended!;
  expect(meets(recommended)).toBe(true);
  expect(recommended.scores!.hottestCpu).toBeLessThanOrEqual(advice.targets.hottestCpu);
  for (const other of meeting) expect(simplicityOrder(recommended, other)).toBeLessThanOrEqual(0);
}

describe("the advisor", () => {
  it("recommends salting the fleet's device ids with a modest bucket count (seed 003)", () => {
    const advice = adviseScenario(fleet, { durationS: 600, buckets: [8, 24, 64] });
    const recommended = advice.recommended!;
    const salt = recommended.candidate.changes.find((change) => change.kind === "salt");
    expect(salt).toMatchObject({ fields: ["deviceID"] });
    expect(salt?.kind === "salt" ? salt.buckets : Number.NaN).toBeLessThanOrEqual(64);
    expect(meets(recommended)).toBe(true);
    expect(recommended.scores!.reads.every((read) => read.fanout === 1)).toBe(true);
    expect(advice.candidates[0]!.failures.map((f) => f.target)).toContain("hottestCpu");
    expect(advice.losers.find((loser) => loser.name === "as-is")?.reason).toMatch(
      /more nodes would not fix it/,
    );
    expect(advice.beyondTheKey.map((note) => note.kind)).toEqual([
      "more-nodes-do-not-help",
      "analytical-store",
      "dominant-tenant",
    ]);
    expect(advice.decision.find((row) => row.factor === "Write pattern")?.pointsTo).toBe("salting");
    expectSoundRecommendation(advice);
  }, 60_000);

  it("leaves a naturally distributed key (userID#ts, range reads per user) unsalted", () => {
    const scenario = fromSample(userKeys(1000), "writes=20000,range-1d=50,latest-10=500", 6, 50_000);
    const advice = adviseScenario(scenario, { durationS: 600, buckets: [12] });
    expect(advice.recommended?.candidate.name).toBe("as-is");
    expect(advice.recommended?.scores?.buckets).toBe(1);
    expect(advice.beyondTheKey[0]?.kind).toBe("no-change");
    expectSoundRecommendation(advice);
  }, 30_000);

  it("models a fleet sample as the hot customer's contiguous ids plus random-looking ones", () => {
    const scenario = fromSample(fleetKeys(2000), "writes=180000,latest-100=8000", 12, 2_400_000);
    const [acme, others] = scenario.workload.groups;
    expect(acme).toMatchObject({ name: "acme-<digits>", fields: { id: "acme-{i:06}" } });
    expect(acme!.writesPerS / 180000).toBeCloseTo(0.62, 1);
    expect(others).toMatchObject({ name: "<8 hex>", fields: { id: "{hex8:i}" } });
    expect(scenario.workload.reads[0]).toMatchObject({ group: "acme-<digits>", limit: 100 });
    expect(scenario.designs[0]!.schema.segments).toEqual([
      { field: "id", codec: { type: "string", raw: true } },
      { field: "ts", codec: { type: "timestamp", unit: "ms", reverse: true } },
    ]);
  });

  it("names an unknown baseline", () => {
    expect(() => adviseScenario(fleet, { baseline: "nope" })).toThrow(/baseline "nope" is not a design/);
  });
});
