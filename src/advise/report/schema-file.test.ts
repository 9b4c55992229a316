import { load as parseYaml } from "js-yaml";
import { describe, expect, it } from "vitest";
import { compileSchema } from "../../keys/index.js";
import type { SchemaSpec } from "../../keys/types.js";
import { parseKeyLines, splitKeySample } from "../infer/key-sample.js";
import { inferKeyStructure, type KeyStructure } from "../infer/key-structure.js";
import { parseWorkloadRates } from "../infer/rates.js";
import { realKeyOf } from "../infer/real-key.js";
import { scenarioFromSample } from "../infer/sample-scenario.js";
import { adviseScenario } from "../judge/advise.js";
import { structureTable } from "./report-table.js";
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

/** The fields of the report's key table ("(literal…)" rows are not fields) and the examples it shows for each. */
function tableExamples(structure: KeyStructure): Map<string, string[]> {
  const { header, rows } = structureTable(structure);
  const component = header.indexOf("component");
  const examples = header.indexOf("examples");
  return new Map(
    rows
      .filter((row) => !row[component]!.startsWith("("))
      .map((row) => [row[component]!, row[examples]!.split(", ")]),
  );
}

describe("sample keys through the recommended schema", () => {
  it("decode and encode back to the same bytes, holding what the report's key table shows", () => {
    const spec = parseYaml(recommendedSchemaFile(advice)!) as SchemaSpec;
    const salted = compileSchema(spec);
    const { salt: _salt, ...keyOnly } = spec;
    const unsalted = compileSchema(keyOnly);
    const shown = tableExamples(structure);
    expect([...shown.keys()]).toEqual(salted.fields.map((field) => field.name));
    keys.slice(0, 3).forEach((key, index) => {
      const bytes = Buffer.from(key);
      const { values } = unsalted.decode(bytes);
      expect(Buffer.from(unsalted.encode(values))).toEqual(bytes);
      for (const [field, examples] of shown) expect(values[field]).toBe(examples[index]);
      // Salted, the row key is the salt prefix and then the sample key, byte for byte.
      const stored = salted.encode(values);
      expect(Buffer.from(stored.subarray(salted.saltPrefixLength))).toEqual(bytes);
      expect(salted.decode(stored).values).toEqual(values);
    });
  });
});
