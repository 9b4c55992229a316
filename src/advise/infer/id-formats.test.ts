import { describe, expect, it } from "vitest";
import { ulidKeys, uuidV1Keys, uuidV4Keys, uuidV7Keys } from "./fixtures.testsuite.js";
import { idShape } from "./id-formats.js";

describe("generated ids", () => {
  it("tells time-ordered UUIDs (v1, v7) from random ones (v4)", () => {
    expect(idShape(uuidV4Keys(50))).toMatchObject({ format: "uuid-v4", timeOrdered: false });
    expect(idShape(uuidV7Keys(50))).toMatchObject({ format: "uuid-v7", timeOrdered: true });
    // v1 puts time_low first: ordered by time only within a 7-minute sweep, still one moving range.
    expect(idShape(uuidV1Keys(50))).toMatchObject({ format: "uuid-v1", timeOrdered: true });
    expect(idShape(uuidV1Keys(50))?.sweepS).toBe(429);
  });

  it("reads ULIDs as time-ordered, not random", () => {
    expect(idShape(ulidKeys(50))).toMatchObject({ format: "ulid", timeOrdered: true });
    expect(idShape(ulidKeys(50).map((id) => id.toLowerCase()))).toMatchObject({ format: "ulid" });
  });

  it("needs every value in one format", () => {
    expect(idShape([...uuidV4Keys(5), ...uuidV7Keys(5)])).toBeUndefined();
    expect(idShape(["ZZZZZZZZZZZZZZZZZZZZZZZZZZ"])).toBeUndefined();
    expect(idShape(["not-an-id"])).toBeUndefined();
  });
});
