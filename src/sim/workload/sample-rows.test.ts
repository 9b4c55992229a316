import { describe, expect, it } from "vitest";
import { compileSchema } from "../../keys/index.js";
import { validateScenario } from "../scenario/scenario.js";
import { saltedDeviceKey } from "../scenario/schemas.fixture.js";
import { sampleRows } from "./sample-rows.js";

const scenario = validateScenario({
  name: "rows",
  cluster: { nodes: 2 },
  workload: {
    groups: [
      { name: "hot", entities: 100, fields: { deviceID: "acme-{i:03}" }, writesPerS: 300 },
      { name: "rest", entities: 1000, fields: { deviceID: "{hex8:i}" }, writesPerS: 100 },
    ],
  },
  designs: [{ name: "salt-8", schema: saltedDeviceKey(8) }],
});

describe("sampleRows", () => {
  it("gives rows in proportion to the groups' writes, keyed by the design's schema", () => {
    const rows = sampleRows(scenario, "salt-8", { count: 40 });
    expect(rows.filter((row) => row.group === "hot")).toHaveLength(30);
    expect(rows.filter((row) => row.group === "rest")).toHaveLength(10);
    const schema = compileSchema(saltedDeviceKey(8));
    for (const row of rows) expect(row.key.equals(schema.encode(row.values))).toBe(true);
    expect(new Set(rows.map((row) => schema.decode(row.key).bucket)).size).toBeGreaterThan(4);
    expect(rows[0]!.values.deviceID).toBe("acme-001");
  });

  it("concentrates rows on a few entities when asked, with the queries that read each entity", () => {
    const rows = sampleRows(scenario, "salt-8", { count: 40, entitiesPerGroup: 3 });
    const hot = rows.filter((row) => row.group === "hot");
    expect(new Set(hot.map((row) => row.entity)).size).toBe(3);
    const schema = compileSchema(saltedDeviceKey(8));
    for (const row of rows) {
      const queries = row.entityQueries;
      if (!Array.isArray(queries)) throw new Error(queries.unreadable);
      expect(queries).toEqual([{ eq: { deviceID: row.values.deviceID } }]);
      // The salt hashes the time too, so one entity is spread over every bucket.
      expect(schema.plan(queries[0]!).fanout).toBe(8);
    }
  });

  it("names a design that is not there", () => {
    expect(() => sampleRows(scenario, "nope")).toThrow(
      expect.objectContaining({
        name: "UnknownDesignError",
        design: "nope",
        scenario: "rows",
        designs: ["salt-8"],
      }),
    );
  });
});
