import { describe, expect, it } from "vitest";
import { compileSchema } from "../../keys/index.js";
import * as keys from "./fixtures.testsuite.js";
import { parseKeyLines, splitKeySample } from "./key-sample.js";
import { inferKeyStructure } from "./key-structure.js";
import { parseWorkloadRates } from "./rates.js";
import { realKeyOf, realSchemaOf } from "./real-key.js";
import {
  estimatePopulation,
  familiesOf,
  scenarioFromSample,
  sequenceOverflows,
  smallSample,
  smallSampleNote,
} from "./sample-scenario.js";

function modelOf(sample: string[], rates = "writes=1000,latest-10=5", format: "text" | "hex" = "text") {
  const split = splitKeySample(parseKeyLines(sample.join("\n"), format));
  const structure = inferKeyStructure(split);
  return {
    structure,
    scenario: scenarioFromSample(split, structure, { rates: parseWorkloadRates(rates), nodes: 4 }),
  };
}

describe("a scenario from a key sample", () => {
  it("keeps a salt already in the key, over the whole key when one writer's rows change bucket", () => {
    const { scenario } = modelOf(keys.decimalSaltedKeys(800));
    const schema = scenario.designs[0]!.schema;
    expect(schema.salt).toEqual({ buckets: 100, fields: ["player", "part", "ts"], width: 3 });
    expect(schema.separator).toBe("_");
    expect(schema.segments.map((s) => ("field" in s ? s.field : s.literal))).toEqual([
      "player",
      "player",
      "part",
      "ts",
    ]);
    // No player repeats in the sample: one action each, the action one of the four seen.
    expect(scenario.workload.groups[0]!.fields).toMatchObject({ player: "{i}", part: "{hex8:i%4}" });
  });

  it("gives a family whose sampled writers never repeat no more writes per writer than the sample as a whole", () => {
    // Random hex ids: the few that happen to hold only digits look like a family of numeric ids of their own.
    const split = splitKeySample(parseKeyLines(keys.dayRandomKeys(400).join("\n"), "text"));
    const entities = 5000;
    const scenario = scenarioFromSample(split, inferKeyStructure(split), {
      rates: parseWorkloadRates("writes=20000"),
      nodes: 6,
      entities,
    });
    expect(scenario.workload.groups.length).toBeGreaterThan(1);
    for (const group of scenario.workload.groups)
      expect(group.writesPerS / group.entities).toBeLessThanOrEqual((20000 / entities) * 1.05);
  });

  it("writes about once per writer over the window the reads keep, where no sampled writer repeats: a random id is a row per write", () => {
    const split = splitKeySample(parseKeyLines(keys.uuidV4Keys(400).join("\n"), "text"));
    for (const reads of ["get=2000", "get-7d=2000", "range-30d=5"]) {
      const rates = parseWorkloadRates(`writes=20000,${reads}`);
      const scenario = scenarioFromSample(split, inferKeyStructure(split), {
        rates,
        nodes: 6,
        entities: 5000,
      });
      const keptS = Math.max(...scenario.workload.reads.map((read) => ("window" in read ? read.window : 0)));
      // About one write per writer, or as few as 2^32 ids (an 8-hex-digit template) allow.
      for (const group of scenario.workload.groups)
        expect((group.writesPerS * keptS) / group.entities).toBeLessThanOrEqual(
          1.05 * Math.max(1, (group.writesPerS * keptS) / 2 ** 32),
        );
    }
  });

  it("keeps a salt over the writer when each writer keeps its bucket (a hex salt by device)", () => {
    const { scenario } = modelOf(keys.hexSaltedKeys(400));
    expect(scenario.designs[0]!.schema.salt).toEqual({ buckets: 256, fields: ["device"] });
  });

  it("models a counter as one writer with a sequence that grows past the sample's digits", () => {
    const { scenario, structure } = modelOf(keys.counterKeys(300), "writes=20000");
    expect(scenario.workload.groups).toMatchObject([
      { entities: 1, fields: { seq: { sequence: { start: 301 } } } },
    ]);
    const seq = scenario.designs[0]!.schema.segments[1]!;
    // 20,000 writes/s for an hour at the headroom rate needs 9 digits, not the sample's 5.
    expect(seq).toEqual({ field: "seq", codec: { type: "uint", width: 9 } });
    // The description says so: the sample's 99999 is passed in about 5 s.
    expect(sequenceOverflows(structure, { rates: parseWorkloadRates("writes=20000"), nodes: 4 })).toEqual([
      { field: "seq", sampleDigits: 5, modelDigits: 9, passesAfterS: expect.closeTo(5, 0) },
    ]);
  });

  it("models time-ordered ids as the time, and keeps their text for the recommended schema", () => {
    const { scenario, structure } = modelOf(keys.ulidKeys(300));
    expect(scenario.designs[0]!.schema.segments).toEqual([
      { field: "id", codec: { type: "timestamp", unit: "ms" } },
    ]);
    const real = realSchemaOf(
      { ...scenario.designs[0]!.schema, salt: { buckets: 8, fields: ["id"] } },
      realKeyOf(structure),
    );
    expect(real.segments).toEqual([{ field: "id", codec: { type: "string", raw: true } }]);
    expect(
      compileSchema(real)
        .encode({ id: keys.ulidKeys(1)[0]! })
        .toString(),
    ).toMatch(/^\d#01K/);
  });

  it("folds a word and its digits back into one field in the recommended schema", () => {
    const { scenario, structure } = modelOf(keys.counterKeys(300));
    const real = realSchemaOf(scenario.designs[0]!.schema, realKeyOf(structure));
    expect(real.segments).toEqual([{ field: "seq", codec: { type: "string", raw: true } }]);
    expect(compileSchema(real).encode({ seq: "txn00042" }).toString()).toBe("txn00042");
  });

  it("models a dominant tenant as a group of its own: one contiguous key range", () => {
    const { scenario } = modelOf(keys.tenantDeviceKeys(1000), "writes=40000,latest-10=5");
    const [acme] = scenario.workload.groups;
    expect(acme).toMatchObject({ name: "part acme", fields: { part: "acme" } });
    expect(acme!.writesPerS / 40000).toBeCloseTo(0.62, 1);
    expect(scenario.workload.reads[0]).toMatchObject({ group: "part acme", limit: 10 });
  });

  it("models a time bucket before the writer as a value per write, after it as a time", () => {
    const before = modelOf(keys.dayRandomKeys(300)).scenario;
    expect(before.workload.groups[0]!.fields).toMatchObject({ day: { oneOf: ["20240101"] } });
    const after = modelOf(keys.patientKeys(300)).scenario;
    expect(after.designs[0]!.schema.segments[2]).toEqual({
      field: "day",
      codec: { type: "timestamp", unit: "s" },
    });
  });

  it("models a Phoenix-salted binary key in the binary layout", () => {
    const { scenario } = modelOf(keys.phoenixSaltedHexLines(300), "writes=1000", "hex");
    const schema = scenario.designs[0]!.schema;
    expect(schema).toMatchObject({ layout: "binary", salt: { buckets: 16 } });
    expect(compileSchema(schema).fields.map((field) => field.codec.type)).toEqual(["string", "timestamp"]);
  });

  it("says when a sample is too small to trust its inference", () => {
    const few = Array.from({ length: 10 }, (_, i) => `user${(i * 7919) % 1000}#${1_700_000_000 + i}`);
    expect(smallSample(few.length)).toEqual({ keys: 10, trustedFrom: 100 });
    expect(modelOf(few).scenario.description).toContain(smallSampleNote({ keys: 10, trustedFrom: 100 }));
    const many = Array.from({ length: 400 }, (_, i) => `user${(i * 7919) % 1000}#${1_700_000_000 + i}`);
    expect(smallSample(many.length)).toBeUndefined();
    const { description } = modelOf(many).scenario;
    expect(description).not.toContain(smallSampleNote({ keys: 400, trustedFrom: 100 }));
  });

  it("refuses a sample with nothing to model", () => {
    expect(() => modelOf(["a#1", "a#1"])).toThrow(
      expect.objectContaining({ name: "KeySampleError", problem: "identical" }),
    );
  });

  it("estimates a population from repeats and groups ids by shape", () => {
    expect(estimatePopulation(["a", "a", "b", "b", "c", "c"])).toBe(3);
    expect(estimatePopulation(["a", "b", "c", "d"])).toBeGreaterThan(4);
    const families = familiesOf(["acme-000001", "acme-000002", "3fa9c21b", "9b0e44d1", "alice"]);
    expect(families.map((family) => [family.label, family.template("")])).toEqual([
      ["acme-… ids", "acme-{i:06}"],
      ["8-hex-digit ids", "{hex8:i}"],
      ["other ids", "{hex8:i}"],
    ]);
  });
});
