import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { compileSchema } from "../../keys/schema.js";
import { deviceKey } from "../../sim/scenario/schemas.fixture.js";
import { keyParts, namingSchema, rowName, rowNameText } from "./key-fields.js";

const salted = namingSchema(
  compileSchema({ ...deviceKey, name: "salt16", salt: { buckets: 16, fields: ["deviceID", "ts"] } }),
)!;
const unsalted = namingSchema(compileSchema(deviceKey))!;
const TS = Date.UTC(2026, 11, 1, 6);

/** A simulator's split point: a key's first bytes, then arbitrary binary bytes. */
const splitPoint = (text: string, ...binary: number[]) =>
  Buffer.concat([Buffer.from(text, "latin1"), Buffer.from(binary)]);

describe("key parts through the schema", () => {
  it("reads a whole key as its bucket and fields, timestamps as times", () => {
    const key = compileSchema({ ...deviceKey, salt: { buckets: 16, fields: ["deviceID", "ts"] } }).encode({
      deviceID: "acme-003751",
      ts: TS,
    });
    expect(keyParts(salted, key)).toEqual([
      { field: "bucket", text: `b${key.toString("latin1", 0, 2)}`, whole: true },
      { field: "deviceID", text: "acme-003751", whole: true },
      { field: "ts", text: "2026-12-01T06:00:00.000Z", whole: true },
    ]);
  });

  it("keeps the readable start of a field a split point cuts, and nothing of binary bytes", () => {
    expect(keyParts(unsalted, splitPoint("acme-00406", 0x05, 0x7b, 0x21, 0x5d, 0xce))).toEqual([
      { field: "deviceID", text: "acme-00406", whole: false },
    ]);
    expect(keyParts(salted, splitPoint("09#acme-0168", 0xb6, 0xb3, 0x63, 0x0e, 0x0c))).toEqual([
      { field: "bucket", text: "b09", whole: true },
      { field: "deviceID", text: "acme-0168", whole: false },
    ]);
    // Printable bytes of the arbitrary tail are dropped from the first one an identifier has not.
    expect(keyParts(unsalted, splitPoint("acme-08350yk(d", 0x05))).toEqual([
      { field: "deviceID", text: "acme-08350yk", whole: false },
    ]);
    expect(keyParts(salted, Buffer.from("09#"))).toEqual([{ field: "bucket", text: "b09", whole: true }]);
    // A key of another shape: no bucket to read, so nothing is claimed.
    expect(keyParts(salted, Buffer.from([0xff, 0x00, 0x01]))).toEqual([]);
  });

  it("never throws, whatever the bytes", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 40 }), (bytes) => {
        for (const schema of [salted, unsalted]) {
          const parts = keyParts(schema, Buffer.from(bytes));
          expect(parts.slice(0, -1).every((part) => part.whole)).toBe(true);
        }
      }),
    );
  });
});

describe("row names", () => {
  it("names a row by the fields its start shares with its end, then the range of the first that differs", () => {
    const name = rowName(
      salted,
      splitPoint("07#acme-003751", 0x1c, 0x19),
      splitPoint("07#acme-003790", 0x05),
    );
    expect(name).toEqual({
      shared: [{ field: "bucket", text: "b07", whole: true }],
      from: { field: "deviceID", text: "acme-003751", whole: false },
      to: { field: "deviceID", text: "acme-003790", whole: false },
    });
    expect(rowNameText(name)).toBe("b07 · acme-003751…–acme-003790…");
  });

  it("names a row inside one device by the device and the range of times", () => {
    const schema = compileSchema(deviceKey);
    const start = schema.encode({ deviceID: "acme-003751", ts: TS });
    const end = schema.encode({ deviceID: "acme-003751", ts: TS - 60_000 });
    expect(rowNameText(rowName(unsalted, start, end))).toBe(
      "acme-003751 · 2026-12-01T06:00:00.000Z–2026-12-01T05:59:00.000Z",
    );
  });

  it("names the last row by its start, and a row ending at another bucket by both buckets", () => {
    expect(rowNameText(rowName(salted, Buffer.from("15#acme-0899"), null))).toBe("b15 · acme-0899…");
    expect(rowNameText(rowName(salted, Buffer.from("03#"), Buffer.from("04#")))).toBe("b03–b04");
  });

  it("names numbers by their field, so a shard reads as one", () => {
    const sharded = compileSchema({
      version: 1,
      name: "shard-first",
      layout: "text",
      segments: [
        { field: "shard", codec: { type: "uint", width: 2 } },
        { field: "deviceID", codec: { type: "string" } },
      ],
    });
    const start = sharded.encode({ shard: 6, deviceID: "acme-000100" });
    expect(rowNameText(rowName(namingSchema(sharded)!, start, Buffer.from("07#")))).toBe("shard 6–shard 7");
    expect(rowNameText(rowName(namingSchema(sharded)!, Buffer.from("06#"), start))).toBe(
      "shard 6 · …–acme-000100",
    );
  });

  it("is not offered for a schema that is not compiled", () => {
    expect(namingSchema({ spec: deviceKey })).toBeUndefined();
    expect(namingSchema(undefined)).toBeUndefined();
  });
});
