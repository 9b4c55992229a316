import { load as parseYaml } from "js-yaml";
import { describe, expect, it } from "vitest";
import { compileSchema } from "../../keys/index.js";
import type { SchemaSpec } from "../../keys/types.js";
import { parseKeyLines, splitKeySample } from "../infer/key-sample.js";
import { inferKeyStructure } from "../infer/key-structure.js";
import { parseWorkloadRates } from "../infer/rates.js";
import { realKeyOf } from "../infer/real-key.js";
import { scenarioFromSample } from "../infer/sample-scenario.js";
import { adviseScenario } from "../judge/advise.js";
import { recommendedSchemaFile } from "./schema-file.js";

// The textbook keys' txn00001, txn00002, …: the word and its digits are one value of the real key.
const keys = Array.from({ length: 2000 }, (_, i) => `txn${String(i + 1).padStart(5, "0")}`);
const sample = splitKeySample(parseKeyLines(keys.join("\n"), "text"));
const structure = inferKeyStructure(sample);
const scenario = scenarioFromSample(sample, structure, {
  rates: parseWorkloadRates("writes=20000"),
  nodes: 6,
});
const advice = adviseScenario(scenario, { realKey: realKeyOf(structure), durationS: 300, buckets: [8] });

describe("the recommended schema file for a word glued to its digits", () => {
  const file = recommendedSchemaFile(advice)!;
  const schema = compileSchema(parseYaml(file) as SchemaSpec);
  const field = schema.fields.find((f) => f.codec.type === "string")!.name;

  it("says which field holds the word, and written that way each sample key round-trips", () => {
    const comments = file.split("\n").filter((line) => line.startsWith("# "));
    expect(comments.filter((line) => line.includes(`{"${field}": "txn…"}`))).toHaveLength(1);
    for (const key of keys.slice(0, 50)) {
      const encoded = schema.encode({ [field]: key });
      expect(schema.decode(encoded).values).toEqual({ [field]: key });
      // The salt prefix (its separator included), then the sample key byte for byte.
      expect(encoded.subarray(schema.saltPrefixLength).toString()).toBe(key);
    }
  });
});
