import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { loadScenario } from "../sim/scenario.js";
import { bucketChoices, enumerateCandidates, saltFields } from "./candidates.js";
import { keyRoles } from "./field-roles.js";

const fleet = loadScenario(
  readFileSync(new URL("../../examples/fleet-hotspot.yaml", import.meta.url), "utf8"),
);
const postsScenario = loadScenario(
  readFileSync(new URL("../../examples/timestamp-first.yaml", import.meta.url), "utf8"),
);

describe("candidates", () => {
  it("tries 2–4 × nodes and the powers of two up to 256", () => {
    expect(bucketChoices(12)).toEqual([2, 4, 8, 16, 24, 32, 36, 48, 64, 128, 256]);
    expect(bucketChoices(100)).toEqual([2, 4, 8, 16, 32, 64, 128, 200, 256, 300, 400]);
  });

  it("reads the fleet key's roles: device id, then a reversed time; shard is a workload field to promote", () => {
    const roles = keyRoles(fleet, fleet.designs[0]!.schema);
    expect(roles.fields.map((field) => [field.name, field.role.kind, field.inKey])).toEqual([
      ["deviceID", "entity", true],
      ["ts", "time", true],
      ["shard", "pick", false],
    ]);
    expect(roles.monotonic?.name).toBe("ts");
    expect(saltFields(roles)).toEqual(["deviceID"]);
  });

  it("enumerates as-is, promotion, salts, batching and batching with each key change", () => {
    const candidates = enumerateCandidates(fleet, fleet.designs[0]!, { nodes: 12, buckets: [16, 64] });
    expect(candidates.map((candidate) => candidate.name)).toEqual([
      "as-is",
      "promote-shard",
      "salt-16",
      "salt-64",
      "batch-2s",
      "promote-shard_batch-2s",
      "salt-16_batch-2s",
      "salt-64_batch-2s",
    ]);
    const salted = candidates[2]!;
    expect(salted.design.schema.salt).toEqual({ buckets: 16, fields: ["deviceID"] });
    expect(salted.complexity).toBe(3);
    expect(candidates[1]!.design.schema.segments[0]).toEqual({
      field: "shard",
      codec: { type: "uint", width: 2 },
    });
    expect(candidates[7]!).toMatchObject({ complexity: 5, design: { batch: 2 } });
  });

  it("reverses a forward timestamp, promotes the author ahead of it and salts over the time it leads with", () => {
    const candidates = enumerateCandidates(postsScenario, postsScenario.designs[0]!, {
      nodes: 6,
      buckets: [12],
      batching: false,
    });
    expect(candidates.map((candidate) => candidate.name)).toEqual([
      "as-is",
      "reverse-ts",
      "promote-author",
      "salt-12",
    ]);
    expect(candidates[2]!.design.schema.segments.map((s) => ("field" in s ? s.field : s.literal))).toEqual([
      "post",
      "author",
      "ts",
    ]);
    expect(candidates[3]!.design.schema.salt?.fields).toEqual(["ts"]);
  });

  it("rejects a bucket count out of range", () => {
    expect(() => enumerateCandidates(fleet, fleet.designs[0]!, { nodes: 12, buckets: [1] })).toThrow(
      /buckets: 1 is not a whole number from 2 to 65536/,
    );
  });
});
