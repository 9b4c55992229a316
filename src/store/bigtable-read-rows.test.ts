import { Readable } from "node:stream";
import { describe, expect, it } from "vitest";
import { type ReadRowsCall, type ReadRowsRequest, readRows, resumeRequest } from "./bigtable-read-rows.js";
import type { ReadRowsResponse } from "./read-rows-decoder.js";

const key = (text: string) => Buffer.from(text);
const committed = (text: string): ReadRowsResponse => ({
  chunks: [
    {
      rowKey: key(text),
      familyName: { value: "m" },
      qualifier: { value: key("q") },
      value: key(text),
      commitRow: true,
    },
  ],
});
const failure = (code: number, message = "broken") => Object.assign(new Error(message), { code });

/** A fake service: each call answers the next scripted responses, then ends or fails; requests are recorded. */
function service(script: { responses: ReadRowsResponse[]; error?: Error }[]) {
  const requests: ReadRowsRequest[] = [];
  let cancels = 0;
  const start = (request: ReadRowsRequest): ReadRowsCall => {
    requests.push(request);
    const { responses, error } = script[requests.length - 1] ?? { responses: [] };
    const stream = Readable.from(
      (async function* () {
        yield* responses;
        if (error) throw error;
      })(),
    );
    return Object.assign(stream, { cancel: () => void cancels++ });
  };
  return { start, requests, cancels: () => cancels };
}

const request: ReadRowsRequest = {
  tableName: "projects/p/instances/i/tables/t",
  rows: { rowRanges: [{ startKeyClosed: key("a"), endKeyOpen: key("m") }, { startKeyClosed: key("p") }] },
  rowsLimit: 5,
  filter: {},
};

async function keysOf(rows: AsyncIterable<{ key: Buffer }>): Promise<string[]> {
  const keys: string[] = [];
  for await (const row of rows) keys.push(row.key.toString());
  return keys;
}

describe("readRows", () => {
  it("resumes a call broken by a retryable status after the last row, asking only for the rows still owed", async () => {
    const fake = service([
      { responses: [committed("b"), committed("c")], error: failure(14) },
      { responses: [committed("d"), committed("q"), committed("r")] },
    ]);
    expect(
      await keysOf(
        readRows(fake.start, request, { family: "m", failure: (error) => error as Error, retries: 2 }),
      ),
    ).toEqual(["b", "c", "d", "q", "r"]);
    expect(fake.requests[1]).toEqual({
      ...request,
      rows: {
        rowKeys: [],
        rowRanges: [{ startKeyOpen: key("c"), endKeyOpen: key("m") }, { startKeyClosed: key("p") }],
      },
      rowsLimit: 3,
    });
  });

  it("drops a half-sent row when its call breaks and reads it again whole", async () => {
    const fake = service([
      {
        responses: [
          committed("b"),
          {
            chunks: [
              {
                rowKey: key("c"),
                familyName: { value: "m" },
                qualifier: { value: key("q") },
                value: key("x"),
                valueSize: 2,
              },
            ],
          },
        ],
        error: failure(4),
      },
      { responses: [committed("c")] },
    ]);
    const rows = [];
    for await (const row of readRows(fake.start, request, {
      family: "m",
      failure: (error) => error as Error,
      retries: 1,
    }))
      rows.push(row);
    expect(rows.map((row) => [row.key.toString(), row.cells.get("q")?.toString()])).toEqual([
      ["b", "b"],
      ["c", "c"],
    ]);
  });

  it("fails with the status when it is not retryable or the retries are spent, never with a short answer", async () => {
    const notRetryable = service([{ responses: [committed("b")], error: failure(5, "NOT_FOUND") }]);
    await expect(
      keysOf(
        readRows(notRetryable.start, request, {
          family: "m",
          failure: (error) => error as Error,
          retries: 3,
        }),
      ),
    ).rejects.toMatchObject({ code: 5 });
    expect(notRetryable.requests).toHaveLength(1);
    const spent = service([
      { responses: [], error: failure(14) },
      { responses: [], error: failure(14) },
    ]);
    await expect(
      keysOf(readRows(spent.start, request, { family: "m", failure: (error) => error as Error, retries: 1 })),
    ).rejects.toMatchObject({
      code: 14,
    });
    expect(spent.requests).toHaveLength(2);
  });

  it("cancels the call when the reader stops early", async () => {
    const fake = service([{ responses: [committed("b"), committed("c")] }]);
    for await (const _ of readRows(fake.start, request, {
      family: "m",
      failure: (error) => error as Error,
      retries: 0,
    }))
      break;
    expect(fake.cancels()).toBe(1);
  });
});

describe("resumeRequest", () => {
  it("never resumes into an empty row set (which would read the whole table)", () => {
    const single = { ...request, rows: { rowKeys: [key("c")] }, rowsLimit: undefined };
    expect(resumeRequest(single, key("c"), undefined)).toBeUndefined();
    const closed = { ...request, rows: { rowRanges: [{ startKeyClosed: key("a"), endKeyOpen: key("c") }] } };
    expect(resumeRequest(closed, key("c"), 3)).toBeUndefined();
    expect(resumeRequest(request, key("b"), 0)).toBeUndefined();
  });

  it("keeps ranges not reached and row keys after the last key", () => {
    const mixed = {
      ...request,
      rows: { rowKeys: [key("a"), key("z")], rowRanges: [{ startKeyClosed: key("x") }] },
    };
    expect(resumeRequest(mixed, key("k"), 2)).toEqual({
      ...mixed,
      rows: { rowKeys: [key("z")], rowRanges: [{ startKeyClosed: key("x") }] },
      rowsLimit: 2,
    });
  });
});
