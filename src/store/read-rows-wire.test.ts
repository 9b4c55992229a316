import messages from "@google-cloud/bigtable/build/protos/protos.js";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { CellChunk } from "./read-rows-decoder.js";
import { decodeReadRowsResponse, ReadRowsWireError } from "./read-rows-wire.js";

const { ReadRowsResponse } = messages.google.bigtable.v2;

const bytes = (maxLength: number) => fc.uint8Array({ maxLength }).map((array) => Buffer.from(array));

/** Every CellChunk field, the ones rows are not made of (timestamp, labels) included. */
const chunkArbitrary = fc.record(
  {
    rowKey: bytes(6),
    familyName: fc.record({ value: fc.string({ maxLength: 4 }) }, { requiredKeys: [] }),
    qualifier: fc.record({ value: bytes(4) }, { requiredKeys: [] }),
    timestampMicros: fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }).map(String),
    labels: fc.array(fc.string({ maxLength: 3 }), { maxLength: 2 }),
    value: bytes(20),
    valueSize: fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }),
    resetRow: fc.boolean(),
    commitRow: fc.boolean(),
  },
  { requiredKeys: [] },
);

const responseArbitrary = fc.record(
  {
    chunks: fc.array(chunkArbitrary, { maxLength: 5 }),
    lastScannedRowKey: bytes(6),
    requestStats: fc.record({
      fullReadStatsView: fc.record({
        readIterationStats: fc.record({
          rowsSeenCount: fc.nat().map(String),
          cellsReturnedCount: fc.nat().map(String),
        }),
      }),
    }),
  },
  { requiredKeys: [] },
);

const bytesOf = (value: Uint8Array | string | null | undefined) =>
  value === null || value === undefined ? Buffer.alloc(0) : Buffer.from(value as Uint8Array);

/** What rows are made of, as the generated decoder reads it (absent and default alike). */
function rowFields(chunk: messages.google.bigtable.v2.ReadRowsResponse.ICellChunk | CellChunk) {
  return {
    rowKey: bytesOf(chunk.rowKey),
    familyName: chunk.familyName ? [bytesOf(chunk.familyName.value).toString()] : [],
    qualifier: chunk.qualifier ? [bytesOf(chunk.qualifier.value)] : [],
    value: bytesOf(chunk.value),
    valueSize: chunk.valueSize ?? 0,
    resetRow: chunk.resetRow ?? false,
    commitRow: chunk.commitRow ?? false,
  };
}

describe("decodeReadRowsResponse", () => {
  it("reads what the generated decoder reads, whatever else the message carries", () => {
    fc.assert(
      fc.property(responseArbitrary, (fields) => {
        const wire = Buffer.from(ReadRowsResponse.encode(ReadRowsResponse.fromObject(fields)).finish());
        const generated = ReadRowsResponse.decode(wire);
        const ours = decodeReadRowsResponse(wire);
        expect((ours.chunks ?? []).map(rowFields)).toEqual(generated.chunks.map(rowFields));
        expect(bytesOf(ours.lastScannedRowKey)).toEqual(bytesOf(generated.lastScannedRowKey));
      }),
    );
  });

  it("refuses a message cut short, as the generated decoder does", () => {
    const response = {
      chunks: [{ rowKey: Buffer.from("row"), value: Buffer.from("value"), commitRow: true }],
    };
    const wire = Buffer.from(ReadRowsResponse.encode(ReadRowsResponse.fromObject(response)).finish());
    for (let cut = 1; cut < wire.length; cut++) {
      const truncated = wire.subarray(0, cut);
      expect(() => ReadRowsResponse.decode(truncated)).toThrow();
      expect(() => decodeReadRowsResponse(truncated)).toThrow(ReadRowsWireError);
    }
  });

  it("refuses a wire type no field of the message uses", () => {
    // Field 15, wire type 3 (a group start, which proto3 messages never use).
    expect(() => decodeReadRowsResponse(Buffer.from([(15 << 3) | 3]))).toThrow(ReadRowsWireError);
  });
});
