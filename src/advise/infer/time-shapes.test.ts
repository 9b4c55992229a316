import { describe, expect, it } from "vitest";
import { binaryTimeShape, timeOfDayShape, timeShape } from "./time-shapes.js";

describe("time shapes", () => {
  it("reads epoch seconds, milliseconds and microseconds", () => {
    expect(timeShape(["1764000000", "1764000005"])).toEqual({
      shape: "epoch",
      unit: "s",
      reverse: false,
      granularityS: 1,
    });
    expect(timeShape(["1764000000000"])).toMatchObject({ unit: "ms", reverse: false });
    expect(timeShape(["1764000000000000"])).toMatchObject({ unit: "us", reverse: false });
  });

  it("reads reversed times: 9-complement and Long.MAX_VALUE − ms (which keyspread's codec does not write: a uint)", () => {
    expect(timeShape([String(9_999_999_999_999 - 1_764_000_000_000)])).toMatchObject({
      unit: "ms",
      reverse: true,
    });
    expect(timeShape([String(9_223_372_036_854_775_807n - 1_764_000_000_000n)])).toMatchObject({
      shape: "java-reverse",
      reverse: true,
      realCodec: { type: "uint", width: 19 },
    });
  });

  it("reads date digits and ISO-8601 text at their granularity, and rejects numbers that are no time", () => {
    expect(timeShape(["20240315080000", "20240315080500"])).toMatchObject({
      shape: "date-digits",
      granularityS: 1,
    });
    expect(timeShape(["20240315"])).toMatchObject({ shape: "date-digits", granularityS: 86400 });
    expect(timeShape(["2024"])).toMatchObject({ granularityS: 365 * 86400 });
    expect(timeShape(["2025-11-24T16:00:00.123Z", "2025-11-24T16:00:01.5Z"])).toMatchObject({
      shape: "iso",
      unit: "ms",
      realCodec: { type: "string", raw: true },
    });
    expect(timeShape(["2025-11-24"])).toMatchObject({ shape: "iso", granularityS: 86400 });
    expect(timeShape(["12345", "67890"])).toBeUndefined();
    expect(timeShape(["20241315080000"])).toBeUndefined();
    expect(timeShape(["2025-13-24T16:00:00Z"])).toBeUndefined();
  });

  it("reads a time of day and a binary key's 8-byte time (plain or sign-flipped, as Phoenix's BIGINT)", () => {
    expect(timeOfDayShape(["080000", "235959"])).toMatchObject({ shape: "time-of-day", granularityS: 1 });
    expect(timeOfDayShape(["086000"])).toBeUndefined();
    const bytes = (value: bigint) => {
      const buffer = Buffer.alloc(8);
      buffer.writeBigUInt64BE(value);
      return buffer.toString("latin1");
    };
    expect(binaryTimeShape([bytes(1_764_000_000_000n)])).toMatchObject({ unit: "ms" });
    expect(binaryTimeShape([bytes(1_764_000_000_000n + 2n ** 63n)])).toMatchObject({
      unit: "ms",
      realCodec: { type: "int64" },
    });
    expect(binaryTimeShape([bytes(42n)])).toBeUndefined();
  });
});
