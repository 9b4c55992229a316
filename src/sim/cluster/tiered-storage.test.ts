import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { MINIMAL_SCENARIO } from "../scenario/minimal.fixture.js";
import { validateScenario } from "../scenario/scenario.js";
import { storageNodesNeeded, storagePlanning } from "./storage-target.js";
import { coldShare, tieredBytes, tieredNodesNeeded, tierOf } from "./tiered-storage.js";

const DAY_S = 86_400;
const TIB = 2 ** 40;

const thresholds = fc.integer({ min: 30, max: 3650 }).map((days) => days * DAY_S);
const retentions = fc.integer({ min: 1, max: 3650 }).map((days) => days * DAY_S);

describe("tiered storage", () => {
  it("never moves data younger than its threshold", () => {
    fc.assert(
      fc.property(thresholds, fc.double({ min: 0, max: 4000 * DAY_S, noNaN: true }), (coldAfterS, ageS) => {
        if (ageS <= coldAfterS) expect(tierOf(ageS, coldAfterS)).toBe("ssd");
        else expect(tierOf(ageS, coldAfterS)).toBe("infrequent");
      }),
    );
    fc.assert(
      fc.property(
        thresholds,
        retentions,
        fc.double({ min: 0, max: 2 ** 50, noNaN: true }),
        (coldAfterS, retentionS, bytes) => {
          const { ssd, infrequent } = tieredBytes(bytes, { coldAfterS, retentionS });
          // Writes spread evenly over the retention: the bytes younger than the threshold all stay on SSD.
          expect(ssd).toBeGreaterThanOrEqual(
            (bytes * Math.min(coldAfterS, retentionS)) / retentionS - bytes * 1e-12,
          );
          expect(ssd + infrequent).toBeCloseTo(bytes, 0);
          if (retentionS <= coldAfterS) expect(infrequent).toBe(0);
        },
      ),
    );
  });

  it("cannot help a retention no longer than its 30-day minimum threshold", () => {
    expect(coldShare(30 * DAY_S, 30 * DAY_S)).toBe(0);
    expect(coldShare(30 * DAY_S, 180 * DAY_S)).toBeCloseTo(150 / 180, 12);
  });

  it("needs the nodes the SSD part and the whole need, never fewer than either", () => {
    fc.assert(
      fc.property(
        thresholds,
        retentions,
        fc.double({ min: 1, max: 2 ** 52, noNaN: true }),
        (coldAfterS, retentionS, bytes) => {
          const plan = {
            coldAfterS,
            retentionS,
            share: 0.7,
            ssdBytesPerNode: 5 * TIB,
            tieredBytesPerNode: 32 * TIB,
          };
          const nodes = tieredNodesNeeded(bytes, plan);
          const { ssd } = tieredBytes(bytes, plan);
          expect(nodes * 0.7 * 5 * TIB).toBeGreaterThanOrEqual(ssd * (1 - 1e-9));
          expect(nodes * 0.7 * 32 * TIB).toBeGreaterThanOrEqual(bytes * (1 - 1e-9));
        },
      ),
    );
  });

  it("sizes a declared tiered table: 144.8 TiB kept 180 days at a 30-day threshold on 7 nodes", () => {
    const scenario = validateScenario({
      ...MINIMAL_SCENARIO,
      cluster: { nodes: 2, tieredStorage: { coldAfter: "30d" } },
      workload: { ...MINIMAL_SCENARIO.workload, retention: "180d" },
    });
    const bytes = 10_000 * 1024 * 180 * DAY_S;
    expect(storageNodesNeeded(bytes, storagePlanning(scenario, "ssd", 1, 180 * DAY_S))).toBe(7);
    expect(storageNodesNeeded(bytes, storagePlanning(scenario, "ssd", 1, 30 * DAY_S))).toBe(42);
  });
});
