import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { writeCost } from "../sim/cluster/cluster.js";
import { defaultCostModel } from "../sim/cluster/model.js";
import { parseScenario } from "../sim/scenario/scenario.js";
import { judgeScenario } from "./judge.js";
import { rekeySizing } from "./rekey-sizing.js";

const scenario = (file: string) =>
  parseScenario(readFileSync(new URL(`../../examples/${file}`, import.meta.url), "utf8"));

describe("the lab sizes the re-keying its verdict asks for", () => {
  it("sequential ids at 20,000 writes/s kept 7 days: rate × retention to copy, dual-write doubling the writes' CPU", () => {
    const rekeyed = scenario("sequential-ids-rekey.yaml");
    const verdict = judgeScenario(rekeyed, { durationS: 1_800, sensitivity: false });
    const rekey = rekeySizing(rekeyed, verdict.advice);
    // The lab judges generated candidates too: the counter's digits reversed, simpler than any salt.
    expect(rekey).toMatchObject({ from: "as-is", to: "reverse-id", retentionS: 7 * 86_400 });
    const rows = 20_000 * 7 * 86_400;
    expect(rekey!.volume).toEqual({ rows, storedBytes: rows * 512, basis: "scenario" });
    const { sizing } = rekey!;
    const liveWrites = (20_000 * writeCost(512, defaultCostModel("ssd"))) / 4;
    expect(sizing.cpu.liveWrites).toBeCloseTo(liveWrites, 12);
    expect(sizing.cpu.dualWrite - sizing.cpu.today).toBeCloseTo(liveWrites, 12);
    expect(sizing.storageNodes).toEqual({ oneTable: 2, bothTables: 4 });
    expect(sizing.onFewestNodes.bound).toBe("cluster-cpu");
    expect(sizing.atRequestedRate).toMatchObject({ rowsPerS: 160_000, bound: "tasks" });
  });

  it("says nothing when the verdict keeps the key", () => {
    const kept = scenario("sequential-ids.yaml");
    expect(
      rekeySizing(kept, judgeScenario(kept, { durationS: 1_800, sensitivity: false }).advice),
    ).toBeUndefined();
  });
});
