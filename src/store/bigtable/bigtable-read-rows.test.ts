import { Readable } from "node:stream";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type ReadRowsCall, type ReadRowsRequest, readRows, resumeRequest } from "./bigtable-read-rows.js";
import { ReadRowsProtocolError, type ReadRowsResponse } from "./read-rows-decoder.js";

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

describe("readRows as a stream", () => {
  const options = {
    family: "m",
    failure: (error: unknown) => error as Error,
    retries: 3,
    backoffMs: () => 0,
  };

  it("pauses a call whose rows the reader does not take, and resumes it once they are taken", async () => {
    let produced = 0;
    const keys = Array.from({ length: 5000 }, (_, i) => `k${String(i).padStart(5, "0")}`);
    const start = (): ReadRowsCall =>
      Object.assign(
        Readable.from(
          (function* () {
            for (const text of keys) {
              produced++;
              yield committed(text);
            }
          })(),
        ),
        { cancel: () => {} },
      );
    const rows = readRows(start, { ...request, rowsLimit: undefined }, options);
    expect((await rows.next()).value?.key.toString()).toBe("k00000");
    // However long the reader waits, the call holds at the buffer's bound (plus a stream's own buffer).
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(produced).toBeLessThan(1024 + 100);
    expect(await keysOf(rows)).toEqual(keys.slice(1));
    expect(produced).toBe(5000);
  });

  it("hands out nothing more once aborted, cancels the call and fails with the abort's reason", async () => {
    const fake = service([{ responses: [committed("b"), committed("c"), committed("d")] }]);
    const abort = new AbortController();
    const rows = readRows(fake.start, request, { ...options, signal: abort.signal });
    expect((await rows.next()).value?.key.toString()).toBe("b");
    const reason = new Error("stop");
    abort.abort(reason);
    await expect(rows.next()).rejects.toBe(reason);
    expect(fake.cancels()).toBe(1);
    await expect(
      readRows(fake.start, request, { ...options, signal: AbortSignal.abort(reason) }).next(),
    ).rejects.toBe(reason);
    expect(fake.requests).toHaveLength(1);
  });

  it("fails through `failure` on a response that breaks the protocol, after the rows before it", async () => {
    const fake = service([
      { responses: [committed("b"), { chunks: [{ value: key("x"), commitRow: true }] }] },
    ]);
    const failures: unknown[] = [];
    const rows = readRows(fake.start, request, {
      ...options,
      failure: (error) => {
        failures.push(error);
        return new Error("wrapped", { cause: error });
      },
    });
    expect((await rows.next()).value?.key.toString()).toBe("b");
    await expect(rows.next()).rejects.toThrow("wrapped");
    expect(failures[0]).toBeInstanceOf(ReadRowsProtocolError);
  });

  it("answers readers that ask before a row arrives in the order they asked", async () => {
    const fake = service([{ responses: [committed("b"), committed("c")] }]);
    const rows = readRows(fake.start, request, options);
    const [first, second, third] = await Promise.all([rows.next(), rows.next(), rows.next()]);
    expect([first.value?.key.toString(), second.value?.key.toString(), third.done]).toEqual(["b", "c", true]);
  });

  it("starts no call before the first row is asked for", async () => {
    const fake = service([{ responses: [committed("b")] }]);
    const rows = readRows(fake.start, request, options);
    await new Promise((resolve) => setImmediate(resolve));
    expect(fake.requests).toHaveLength(0);
    expect(await keysOf(rows)).toEqual(["b"]);
    expect(fake.requests).toHaveLength(1);
  });

  it("fails with the abort's reason even when the call had ended or failed with rows not yet taken", async () => {
    const reason = new Error("stop");
    for (const error of [undefined, failure(5, "NOT_FOUND")]) {
      const fake = service([
        { responses: [committed("b"), committed("c"), committed("d")], ...(error ? { error } : {}) },
      ]);
      const abort = new AbortController();
      const rows = readRows(fake.start, request, { ...options, signal: abort.signal });
      expect((await rows.next()).value?.key.toString()).toBe("b");
      await new Promise((resolve) => setTimeout(resolve, 20));
      abort.abort(reason);
      await expect(rows.next()).rejects.toBe(reason);
      expect(await rows.next()).toEqual({ value: undefined, done: true });
    }
  });

  it("rejects once with the failure, then reads as ended (as a generator does)", async () => {
    const fake = service([{ responses: [], error: failure(5, "NOT_FOUND") }]);
    const rows = readRows(fake.start, request, options);
    await expect(rows.next()).rejects.toMatchObject({ code: 5 });
    expect(await rows.next()).toEqual({ value: undefined, done: true });
  });

  it("hears a status the call reports on the tick after it starts", async () => {
    const start = (): ReadRowsCall => {
      const call = Object.assign(new Readable({ objectMode: true, read() {} }), { cancel: () => {} });
      process.nextTick(() => call.emit("error", failure(5, "NOT_FOUND")));
      return call;
    };
    // Asked from a callback of the event loop, where the next tick comes before any promise job.
    const { first } = await new Promise<{ first: Promise<unknown> }>((resolve) =>
      setImmediate(() => resolve({ first: readRows(start, request, options).next() })),
    );
    await expect(first).rejects.toMatchObject({ code: 5 });
  });

  it("delivers every row once and in order however calls break (property)", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: 30 }),
        fc.array(fc.integer({ min: 0, max: 10 }), { maxLength: 3 }),
        async (total, breaks) => {
          const all = Array.from({ length: total }, (_, i) => `b${String(i).padStart(3, "0")}`);
          // Each broken call sends some of what is owed, then fails with UNAVAILABLE; the last call ends.
          const requests: ReadRowsRequest[] = [];
          const start = (attempt: ReadRowsRequest): ReadRowsCall => {
            requests.push(attempt);
            const after = attempt.rows.rowRanges?.[0]?.startKeyOpen?.toString();
            const owed = all.filter((text) => after === undefined || text > after);
            const broken = requests.length <= breaks.length;
            const sent = broken ? owed.slice(0, breaks[requests.length - 1]) : owed;
            return Object.assign(
              Readable.from(
                (async function* () {
                  yield* sent.map(committed);
                  if (broken) throw failure(14);
                })(),
              ),
              { cancel: () => {} },
            );
          };
          const single = {
            ...request,
            rows: { rowRanges: [{ startKeyClosed: key("a") }] },
            rowsLimit: undefined,
          };
          expect(await keysOf(readRows(start, single, { ...options, retries: breaks.length }))).toEqual(all);
        },
      ),
      { numRuns: 100 },
    );
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
