import { Bigtable, v2 } from "@google-cloud/bigtable";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CellChunk } from "./read-rows-decoder.js";
import { decodeReadRowsResponse, ReadRowsWireError } from "./read-rows-wire.js";

/** ReadRows as the official client's gRPC stub defines it: its response serializer and deserializer. */
interface ReadRowsDefinition {
  responseSerialize(response: object): Buffer;
  responseDeserialize(bytes: Buffer): { chunks: CellChunk[]; lastScannedRowKey: Buffer };
}

let client: v2.BigtableClient;
let official: ReadRowsDefinition;

beforeAll(async () => {
  // The emulator's settings: no credentials, and no probe for a metadata server.
  process.env.METADATA_SERVER_DETECTION ??= "none";
  client = new v2.BigtableClient(
    new Bigtable({ projectId: "p", metricsEnabled: false }).options.BigtableClient,
  );
  const stub = (await client.initialize()) as unknown as { readRows: ReadRowsDefinition };
  official = stub.readRows;
});

afterAll(() => client.close());

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

const bytesOf = (value: Uint8Array | null | undefined) =>
  value === null || value === undefined ? Buffer.alloc(0) : Buffer.from(value);

/** What rows are made of (absent and default alike). */
function rowFields(chunk: CellChunk) {
  return {
    rowKey: bytesOf(chunk.rowKey),
    familyName: chunk.familyName ? [chunk.familyName.value ?? ""] : [],
    qualifier: chunk.qualifier ? [bytesOf(chunk.qualifier.value)] : [],
    value: bytesOf(chunk.value),
    valueSize: chunk.valueSize ?? 0,
    resetRow: chunk.resetRow ?? false,
    commitRow: chunk.commitRow ?? false,
  };
}

describe("decodeReadRowsResponse", () => {
  it("reads what the official client reads, whatever else the message carries", () => {
    fc.assert(
      fc.property(responseArbitrary, (fields) => {
        const wire = official.responseSerialize(fields);
        const generated = official.responseDeserialize(wire);
        const ours = decodeReadRowsResponse(wire);
        expect((ours.chunks ?? []).map(rowFields)).toEqual(generated.chunks.map(rowFields));
        expect(bytesOf(ours.lastScannedRowKey)).toEqual(bytesOf(generated.lastScannedRowKey));
      }),
    );
  });

  it("refuses a message cut short, as the official client does", () => {
    const response = {
      chunks: [{ rowKey: Buffer.from("row"), value: Buffer.from("value"), commitRow: true }],
    };
    const wire = official.responseSerialize(response);
    for (let cut = 1; cut < wire.length; cut++) {
      const truncated = wire.subarray(0, cut);
      expect(() => official.responseDeserialize(truncated)).toThrow();
      expect(() => decodeReadRowsResponse(truncated)).toThrow(ReadRowsWireError);
    }
  });

  it("refuses a wire type no field of the message uses", () => {
    // Field 15, wire type 3 (a group start, which proto3 messages never use).
    expect(() => decodeReadRowsResponse(Buffer.from([(15 << 3) | 3]))).toThrow(ReadRowsWireError);
  });
});
