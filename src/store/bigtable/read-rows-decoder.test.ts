import { ChunkTransformer } from "@google-cloud/bigtable/build/src/chunktransformer.js";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { StoreRow } from "../store.js";
import {
  type CellChunk,
  ReadRowsDecoder,
  ReadRowsProtocolError,
  type ReadRowsResponse,
} from "./read-rows-decoder.js";

const FAMILY = "m";

interface Cell {
  family: string;
  qualifier: string;
  timestamp: number;
  value: Buffer;
}

/** Rows in key order, each with cells ordered as Bigtable sends them: family, qualifier, newest first. */
const rowsArbitrary = fc
  .uniqueArray(fc.uint8Array({ minLength: 1, maxLength: 5 }), {
    maxLength: 8,
    selector: (key) => Buffer.from(key).toString("hex"),
  })
  .chain((keys) =>
    fc.tuple(
      ...keys
        .map((key) => Buffer.from(key))
        .sort(Buffer.compare)
        .map((key) =>
          fc
            .array(
              fc.record({
                family: fc.constantFrom("m", "x"),
                qualifier: fc.constantFrom("", "a", "b", "cpu"),
                timestamp: fc.integer({ min: 0, max: 5 }),
                value: fc.uint8Array({ maxLength: 12 }).map((bytes) => Buffer.from(bytes)),
              }),
              { minLength: 1, maxLength: 5 },
            )
            .map((cells) => ({
              key,
              cells: cells.sort(
                (a, b) =>
                  a.family.localeCompare(b.family) ||
                  a.qualifier.localeCompare(b.qualifier) ||
                  b.timestamp - a.timestamp,
              ),
            })),
        ),
    ),
  );

/** How a row is sent: value splits, an abandoned first attempt (reset_row), a repeated row key. */
const sendingArbitrary = fc.record({
  splitSeed: fc.nat(),
  resetAfter: fc.option(fc.nat({ max: 6 }), { nil: undefined }),
  repeatKey: fc.boolean(),
});

type SendingPlan = typeof sendingArbitrary extends fc.Arbitrary<infer T> ? T : never;

function chunksOf(row: { key: Buffer; cells: Cell[] }, sending: SendingPlan): CellChunk[] {
  const chunks: CellChunk[] = [];
  let previous: Cell | undefined;
  row.cells.forEach((cell, index) => {
    const naming: CellChunk = {
      ...(index === 0 || sending.repeatKey ? { rowKey: row.key } : {}),
      ...(previous?.family !== cell.family ? { familyName: { value: cell.family } } : {}),
      ...(previous?.family !== cell.family || previous.qualifier !== cell.qualifier
        ? { qualifier: { value: Buffer.from(cell.qualifier) } }
        : {}),
    };
    previous = cell;
    const parts = 1 + ((sending.splitSeed + index) % Math.max(1, Math.min(3, cell.value.length)));
    const size = Math.ceil(cell.value.length / parts);
    for (let part = 0; part < parts; part++) {
      const last = part === parts - 1;
      chunks.push({
        ...(part === 0 ? naming : {}),
        value: cell.value.subarray(part * size, last ? undefined : (part + 1) * size),
        ...(last ? {} : { valueSize: cell.value.length }),
      });
    }
  });
  chunks[chunks.length - 1]!.commitRow = true;
  if (sending.resetAfter === undefined) return chunks;
  // A first attempt cut short, then reset: the row is sent again whole.
  const cut = Math.min(sending.resetAfter, chunks.length - 1);
  return cut === 0
    ? chunks
    : [
        ...chunks.slice(0, cut).map((chunk) => ({ ...chunk, commitRow: false })),
        { resetRow: true },
        ...chunks,
      ];
}

function responsesOf(chunks: CellChunk[], sizes: number[]): ReadRowsResponse[] {
  const responses: ReadRowsResponse[] = [];
  let at = 0;
  for (let i = 0; at < chunks.length; i++) {
    const size = 1 + (sizes[i % Math.max(1, sizes.length)] ?? 0);
    responses.push({ chunks: chunks.slice(at, at + size) });
    at += size;
  }
  return responses;
}

/** The rows the official client's transformer yields, as the store returned them before (first version of each qualifier). */
function officialRows(responses: ReadRowsResponse[]): Promise<StoreRow[]> {
  return new Promise((resolve, reject) => {
    const transformer = new ChunkTransformer({ decode: false } as ConstructorParameters<
      typeof ChunkTransformer
    >[0]);
    const rows: StoreRow[] = [];
    transformer.on(
      "data",
      (row: { key: Buffer; data: Record<string, Record<string, { value: Buffer | number }[]>> }) => {
        const cells = new Map<string, Buffer>();
        for (const [qualifier, versions] of Object.entries(row.data[FAMILY] ?? {})) {
          const value = versions[0]!.value;
          const bytes = Buffer.alloc(8);
          if (typeof value === "number") bytes.writeBigInt64BE(BigInt(value));
          cells.set(qualifier, typeof value === "number" ? bytes : Buffer.from(value));
        }
        rows.push({ key: Buffer.from(row.key), cells });
      },
    );
    transformer.on("error", reject);
    transformer.on("end", () => resolve(rows));
    for (const response of responses) transformer.write(response);
    transformer.end();
  });
}

function ourRows(responses: ReadRowsResponse[]): StoreRow[] {
  const decoder = new ReadRowsDecoder(FAMILY);
  const rows = responses.flatMap((response) => decoder.decode(response));
  decoder.finish();
  return rows;
}

const comparable = (rows: StoreRow[]) =>
  rows.map((row) => ({
    key: row.key.toString("hex"),
    cells: [...row.cells].map(([qualifier, value]) => [qualifier, value.toString("hex")]),
  }));

describe("ReadRowsDecoder", () => {
  it("yields the rows the official client's ChunkTransformer yields, on random chunk streams", async () => {
    await fc.assert(
      fc.asyncProperty(
        rowsArbitrary,
        fc.array(sendingArbitrary, { minLength: 8, maxLength: 8 }),
        fc.array(fc.nat({ max: 4 }), { maxLength: 6 }),
        async (rows, sendings, sizes) => {
          const chunks = rows.flatMap((row, i) => chunksOf(row, sendings[i]!));
          const responses = responsesOf(chunks, sizes);
          expect(comparable(ourRows(responses))).toEqual(comparable(await officialRows(responses)));
        },
      ),
      { numRuns: 300 },
    );
  });

  it("keeps the newest version of each qualifier of its family only", () => {
    const decoder = new ReadRowsDecoder(FAMILY);
    const rows = decoder.decode({
      chunks: [
        {
          rowKey: Buffer.from("k"),
          familyName: { value: "m" },
          qualifier: { value: Buffer.from("a") },
          value: Buffer.from("new"),
        },
        { value: Buffer.from("old") },
        {
          familyName: { value: "x" },
          qualifier: { value: Buffer.from("b") },
          value: Buffer.from("other"),
          commitRow: true,
        },
      ],
    });
    expect(comparable(rows)).toEqual([{ key: "6b", cells: [["a", Buffer.from("new").toString("hex")]] }]);
  });

  it("resumes after the last committed row or the last scanned key, whichever is later", () => {
    const decoder = new ReadRowsDecoder(FAMILY);
    decoder.decode({
      chunks: [
        {
          rowKey: Buffer.from("b"),
          familyName: { value: "m" },
          qualifier: { value: Buffer.from("q") },
          commitRow: true,
        },
      ],
    });
    expect(decoder.lastKey).toEqual(Buffer.from("b"));
    decoder.decode({ chunks: [], lastScannedRowKey: Buffer.from("d") });
    expect(decoder.lastKey).toEqual(Buffer.from("d"));
    decoder.decode({ chunks: [], lastScannedRowKey: Buffer.from("c") });
    expect(decoder.lastKey).toEqual(Buffer.from("d"));
  });

  it("refuses streams that break the protocol", () => {
    const cell = (key: string, extra: Partial<CellChunk> = {}): CellChunk => ({
      rowKey: Buffer.from(key),
      familyName: { value: "m" },
      qualifier: { value: Buffer.from("q") },
      ...extra,
    });
    const broken: ReadRowsResponse[][] = [
      [{ chunks: [cell("a")] }], // never committed
      [{ chunks: [cell("b", { commitRow: true }), cell("a", { commitRow: true })] }], // keys go back
      [{ chunks: [cell("a"), cell("b", { commitRow: true })] }], // new key inside a row
      [{ chunks: [{ resetRow: true }] }], // reset outside a row
      [{ chunks: [cell("a"), { resetRow: true, value: Buffer.from("v") }] }], // reset with data
      [{ chunks: [cell("a", { valueSize: 3, commitRow: true })] }], // commit inside a split value
      [{ chunks: [{ familyName: { value: "m" }, qualifier: { value: Buffer.from("q") }, commitRow: true }] }], // no key
      [{ chunks: [{ rowKey: Buffer.from("a"), commitRow: true }] }], // no family
    ];
    for (const responses of broken) {
      expect(() => ourRows(responses)).toThrow(ReadRowsProtocolError);
    }
  });
});
