import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { parseSchema } from "./schema.js";

// Vectors from the farm-sensor recipe's create_sensor_row_key run as written (python3, hashlib); see
// fixtures/farm-sensor-keys.py for the recipe and how to regenerate them.
const VECTORS: { farm_id: string; sensor_id: string; timestamp: string; key: string }[] = readFileSync(
  "src/keys/fixtures/farm-sensor-keys.jsonl",
  "utf8",
)
  .split("\n")
  .filter(Boolean)
  .map((line) => JSON.parse(line));

const SENSORS = parseSchema(readFileSync("examples/schemas/farm-sensors.yaml", "utf8"));

describe("the farm-sensor recipe (salt.input)", () => {
  it("encodes every vector byte for byte and decodes it back", () => {
    expect(VECTORS.length).toBeGreaterThan(200);
    expect(VECTORS[0]!.key).toBe("42_farm_0042_sensor_12_20240315080000");
    for (const { key, ...values } of VECTORS) {
      const encoded = SENSORS.encode(values);
      expect(encoded.toString("utf8")).toBe(key);
      expect(SENSORS.decode(Buffer.from(key, "utf8"))).toEqual({ bucket: Number(key.slice(0, 2)), values });
    }
  });

  it("knows a sensor's one bucket from farm and sensor alone, as the recipe's parallel read does", () => {
    for (const { key, farm_id, sensor_id } of VECTORS.slice(0, 40)) {
      const bucket = Number(key.slice(0, 2));
      expect(SENSORS.bucketOf({ farm_id, sensor_id })).toBe(bucket);
      const plan = SENSORS.plan({ eq: { farm_id, sensor_id } });
      expect(plan.fanout).toBe(1);
      expect(plan.ranges[0]!.bucket).toBe(bucket);
      const start = plan.ranges[0]!.start.toString("utf8");
      expect(key.startsWith(start)).toBe(true);
    }
  });

  it("refuses a key whose salt disagrees with its farm and sensor", () => {
    const { key } = VECTORS[0]!;
    const wrong = `${String((Number(key.slice(0, 2)) + 1) % 50).padStart(2, "0")}${key.slice(2)}`;
    expect(() => SENSORS.decode(Buffer.from(wrong))).toThrow(
      expect.objectContaining({
        name: "KeyDecodeError",
        problem: "salt-mismatch",
        bucket: 43,
        expectedBucket: 42,
      }),
    );
  });
});
