import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { validateScenario } from "./scenario.js";
import { deviceKey, saltedDeviceKey } from "./schemas.fixture.js";
import { simulateScenario } from "./simulate.js";
import { SETTLED_RATIO } from "./summary.js";
import { tableFor } from "./table-that-exists.js";

const current = { name: "current", schema: deviceKey };

/** One customer's contiguous range makes most writes: a new table starts it on one node. */
function fleet(designs: unknown[]) {
  return validateScenario({
    name: "resize",
    duration: "2m",
    cluster: { nodes: 4 },
    workload: {
      rowBytes: 256,
      groups: [
        { name: "hot", entities: 5000, fields: { deviceID: "acme-{i:06}" }, writesPerS: 12000 },
        { name: "rest", entities: 50000, fields: { deviceID: "{hex8:i}" }, writesPerS: 6000 },
      ],
    },
    designs,
  });
}

describe("the table that exists", () => {
  it("is the current key's table for every design that keeps the key; a key change or table: new is a new table", () => {
    const renamed = { ...deviceKey, name: "same-key-other-name" };
    expect(tableFor({ name: "more-nodes", schema: deviceKey, nodes: 24 }, current)).toBe("existing");
    expect(tableFor({ name: "batched", schema: renamed, batch: 2 }, current)).toBe("existing");
    expect(tableFor({ name: "salted", schema: saltedDeviceKey(16) }, current)).toBe("new");
    expect(tableFor({ name: "fresh", schema: deviceKey, table: "new" }, current)).toBe("new");
    expect(tableFor({ name: "adopted", schema: saltedDeviceKey(16), table: "existing" }, current)).toBe(
      "existing",
    );
  });

  it("resizing the existing table is warm from the first minute and never starts hotter than the same table on fewer nodes", () => {
    fc.assert(
      fc.property(fc.integer({ min: 2, max: 6 }), fc.integer({ min: 1, max: 12 }), (nodes, added) => {
        const [fewer, more] = simulateScenario(
          fleet([
            { ...current, nodes },
            { name: "resized", schema: deviceKey, nodes: nodes + added },
          ]),
        ).designs;
        expect(more!.table).toBe("existing");
        expect(more!.summary.maxOverMedian.first).toBeLessThanOrEqual(SETTLED_RATIO);
        expect(more!.summary.hottestNodeCpu.first).toBeLessThanOrEqual(fewer!.summary.hottestNodeCpu.first);
      }),
      { numRuns: 6 },
    );
  });

  it("a key change starts as a new table: an unsalted re-key starts on one node", () => {
    const [, rekeyed] = simulateScenario(
      fleet([
        { ...current, schema: saltedDeviceKey(8) },
        { name: "unsalted", schema: deviceKey },
      ]),
    ).designs;
    expect(rekeyed!.table).toBe("new");
    expect(rekeyed!.timeline[0]!.nodeCpu.filter((cpu) => cpu > 0)).toHaveLength(1);
  });
});
