import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { decodeLoggedRequest, encodeLoggedRequest } from "../logged-request.js";
import {
  IngestBodyRejected,
  ingestBodyFormatOf,
  parseIngestBody,
  parseIngestBuffer,
  parseIngestBufferFairly,
} from "./ingest-body.js";

const good = { tenant: "acme", deviceId: "d1", ts: 1_764_484_000_000, metrics: { cpu: 0.5 } };

function rejectionOf(parse: () => unknown): IngestBodyRejected {
  try {
    parse();
  } catch (error) {
    if (error instanceof IngestBodyRejected) return error;
    throw error;
  }
  throw new Error("expected a rejection");
}

const problemsOf = (text: string, format: "ndjson" | "json", tenant?: string) =>
  rejectionOf(() => parseIngestBody(text, format, { tenant })).problems;

describe("parseIngestBody", () => {
  it("reads NDJSON with blank lines and CRLF, and JSON arrays", () => {
    const line = JSON.stringify(good);
    expect(parseIngestBody(`${line}\r\n\n${line}\n`, "ndjson")).toEqual([good, good]);
    expect(parseIngestBody(JSON.stringify([good, good]), "json")).toHaveLength(2);
    expect(parseIngestBody(JSON.stringify(good), "json")).toEqual([good]);
  });

  it("names every bad line and field", () => {
    const lines = [
      JSON.stringify(good),
      "{not json",
      JSON.stringify({ ...good, tenant: "", ts: -1 }),
      JSON.stringify({ ...good, metrics: { cpu: "high" }, extra: 1 }),
      "[1]",
    ].join("\n");
    expect(problemsOf(lines, "ndjson")).toEqual([
      { line: 2, field: "(line)", message: expect.stringMatching(/^not valid JSON/) },
      { line: 3, field: "tenant", message: expect.stringMatching(/^"": expected 1–64 letters/) },
      { line: 3, field: "ts", message: expect.stringMatching(/^-1: expected epoch milliseconds/) },
      { line: 4, field: "extra", message: expect.stringMatching(/unknown field/) },
      { line: 4, field: "metrics.cpu", message: '"high": expected a finite number' },
      { line: 5, field: "(line)", message: expect.stringMatching(/expected an object/), got: "array" },
    ]);
  });

  it("does not let one line smuggle two values", () => {
    const line = JSON.stringify(good);
    expect(problemsOf(`${line}, ${line}`, "ndjson")[0]).toMatchObject({ line: 1, field: "(line)" });
  });

  it("rejects an empty body and missing fields", () => {
    expect(problemsOf("\n", "ndjson")).toEqual([{ line: 1, field: "(body)", message: expect.any(String) }]);
    expect(problemsOf("[{}]", "json").map((p) => p.field)).toEqual(["tenant", "deviceId", "ts", "metrics"]);
    expect(problemsOf(JSON.stringify({ ...good, metrics: {} }), "json")[0]!.message).toMatch(/empty/);
    expect(
      problemsOf('[{"tenant":"a","deviceId":"d","ts":1,"metrics":{"__proto__":1}}]', "json")[0],
    ).toMatchObject({
      field: "metrics.__proto__",
      message: "reserved name; choose another",
    });
  });

  it("caps the listed problems but counts them all", () => {
    const body = Array.from({ length: 150 }, () => "x").join("\n");
    let refused: unknown;
    try {
      parseIngestBody(body, "ndjson");
    } catch (error) {
      refused = error;
    }
    expect(refused).toBeInstanceOf(IngestBodyRejected);
    const { problems, problemCount } = refused as IngestBodyRejected;
    expect({ listed: problems.length, problemCount, first: problems[0]?.line }).toEqual({
      listed: 100,
      problemCount: 150,
      first: 1,
    });
  });

  it("maps content types", () => {
    expect(ingestBodyFormatOf("application/x-ndjson")).toBe("ndjson");
    expect(ingestBodyFormatOf("application/json; charset=utf-8")).toBe("json");
    expect(ingestBodyFormatOf("text/plain")).toBeUndefined();
    expect(ingestBodyFormatOf(undefined)).toBeUndefined();
  });

  it("refuses strings that are not well-formed Unicode, naming line and field", () => {
    const lines = [
      JSON.stringify(good),
      '{"tenant":"acme","deviceId":"d\\ud800","ts":1,"metrics":{"x":1}}',
      '{"tenant":"acme","deviceId":"d","ts":1,"metrics":{"x\\ud800":1,"x\\ud801":2}}',
    ].join("\n");
    expect(problemsOf(lines, "ndjson")).toEqual([
      { line: 2, field: "deviceId", message: expect.stringMatching(/not well-formed Unicode/) },
      { line: 3, field: "metrics.x\ud800", message: expect.stringMatching(/not well-formed Unicode/) },
      { line: 3, field: "metrics.x\ud801", message: expect.stringMatching(/not well-formed Unicode/) },
    ]);
    // A well-formed pair is fine.
    expect(parseIngestBody(JSON.stringify({ ...good, deviceId: "d\ud83d\ude00" }), "json")).toHaveLength(1);
  });

  it("refuses a body that is not UTF-8, naming the line", () => {
    const body = Buffer.concat([
      Buffer.from(`${JSON.stringify(good)}\n{"tenant":"`),
      Buffer.from([0xff, 0x22]),
    ]);
    expect(rejectionOf(() => parseIngestBuffer(body, "ndjson")).problems).toEqual([
      { line: 2, field: "(line)", message: expect.stringMatching(/not valid UTF-8/) },
    ]);
  });

  it("answers any shape of JSON with a rejection, never a crash", () => {
    const deep = (depth: number) => `${"[".repeat(depth)}${"]".repeat(depth)}`;
    const deepObject = (depth: number) => `${'{"a":'.repeat(depth)}1${"}".repeat(depth)}`;
    for (const format of ["ndjson", "json"] as const) {
      expect(rejectionOf(() => parseIngestBody(deep(100_000), format)).problems).toEqual([
        { line: 1, field: "(line)", message: expect.any(String), got: "array" },
      ]);
      expect(rejectionOf(() => parseIngestBody(deepObject(100_000), format)).problemCount).toBeGreaterThan(0);
      const nested = `{"tenant":"a","deviceId":${deep(50_000)},"ts":1,"metrics":{"m":${deepObject(50_000)}}}`;
      expect(rejectionOf(() => parseIngestBody(nested, format)).problems.map((p) => p.field)).toEqual([
        "deviceId",
        "metrics.m",
      ]);
    }
    fc.assert(
      fc.property(
        fc.jsonValue({ maxDepth: 6 }),
        fc.constantFrom("ndjson" as const, "json" as const),
        (value, format) => {
          try {
            parseIngestBody(JSON.stringify(value) ?? "null", format);
          } catch (error) {
            expect(error).toBeInstanceOf(IngestBodyRejected);
          }
        },
      ),
    );
  });

  it("with the caller's tenant: fills it in, and refuses a point naming another (403, by line)", () => {
    const { tenant: _, ...anonymous } = good;
    expect(parseIngestBody(JSON.stringify([anonymous, good]), "json", { tenant: "acme" })).toEqual([
      good,
      good,
    ]);
    const rejection = rejectionOf(() =>
      parseIngestBody(
        [JSON.stringify(good), JSON.stringify({ ...good, tenant: "other" })].join("\n"),
        "ndjson",
        {
          tenant: "acme",
        },
      ),
    );
    expect(rejection.status).toBe(403);
    expect(rejection.problems).toEqual([
      { line: 2, field: "tenant", message: '"other": these credentials are for tenant "acme" only' },
    ]);
    expect(rejectionOf(() => parseIngestBody(JSON.stringify(anonymous), "json")).status).toBe(400);
  });

  it("parses a large NDJSON body in slices with the same points and line numbers", async () => {
    const lines = Array.from({ length: 30_000 }, (_, i) =>
      JSON.stringify({ ...good, deviceId: `device-${i}` }),
    );
    lines[25_000] = "{broken";
    const body = Buffer.from(`\n${lines.join("\n")}\n`);
    expect(body.length).toBeGreaterThan(2 << 20);
    const sliced = await parseIngestBufferFairly(body, "ndjson").catch((error: IngestBodyRejected) => error);
    expect((sliced as IngestBodyRejected).problems).toEqual([
      { line: 25_002, field: "(line)", message: expect.stringMatching(/not valid JSON/) },
    ]);
    lines[25_000] = JSON.stringify(good);
    const whole = Buffer.from(lines.join("\n"));
    expect(await parseIngestBufferFairly(whole, "ndjson")).toEqual(parseIngestBuffer(whole, "ndjson"));
  });

  it("refuses a body whose lines are not one value each, naming the lines, wherever the slices fall", async () => {
    const line = JSON.stringify(good);
    const split = line.indexOf(',"ts"');
    const filler = Array.from({ length: 2_000 }, () => line).join("\n");
    // The issue's body: a blank line at the 128 KiB slice boundary, then two points on one line
    // and one split over two lines — answered 200 live, then dead-lettered by the replay.
    const boundary = filler.indexOf("\n", 128 * 1024) + 1;
    const bad = [`${line},${line}`, line.slice(0, split), line.slice(split + 1)];
    const body = Buffer.from([filler.slice(0, boundary), filler.slice(boundary), ...bad, filler].join("\n"));
    const badLine = 2_000 + 2; // after every filler line and the blank one
    const expected = [0, 1, 2].map((offset) => ({
      line: badLine + offset,
      field: "(line)",
      message: expect.stringMatching(/^not valid JSON/),
    }));
    for (const sliceChars of [undefined, 1, 77, 128 * 1024]) {
      const live = await parseIngestBufferFairly(body, "ndjson", { sliceChars }).catch((error) => error);
      expect((live as IngestBodyRejected).problems).toEqual(expected);
    }
    expect(rejectionOf(() => parseIngestBuffer(body, "ndjson")).problems).toEqual(expected);
  });

  it("refuses one point longer than 1 MiB of text without parsing it", () => {
    const long = JSON.stringify({ ...good, deviceId: " ".repeat(1 << 20) });
    for (const format of ["ndjson", "json"] as const) {
      expect(problemsOf(long, format)).toEqual([
        { line: 1, field: "(line)", message: expect.stringMatching(/one point is at most 1048576/) },
      ]);
    }
    expect(problemsOf(`[${JSON.stringify(good)},${long}]`, "json")[0]).toMatchObject({ line: 2 });
  });

  it("reads a JSON array element by element: positions named, unclosed and trailing text refused", () => {
    const item = JSON.stringify(good);
    expect(parseIngestBody(` [ ${item} ,\n${item}\t] `, "json", { sliceChars: 1 })).toEqual([good, good]);
    // Quotes, backslashes and brackets inside a string do not end an element.
    const tricky = { ...good, deviceId: 'd\\"],[{\\' };
    expect(parseIngestBody(`[${JSON.stringify(tricky)},${item}]`, "json", { sliceChars: 1 })).toEqual([
      tricky,
      good,
    ]);
    const fields = (text: string) => problemsOf(text, "json").map(({ line, field }) => ({ line, field }));
    expect(fields(`[${item},{broken},${item}]`)).toEqual([{ line: 2, field: "(line)" }]);
    expect(fields(`[${item},${item}`)).toEqual([{ line: 2, field: "(line)" }]);
    expect(fields(`[${item}] ${item}`)).toEqual([{ line: 1, field: "(line)" }]);
    expect(fields(`[${item},]`)).toEqual([{ line: 2, field: "(line)" }]);
    expect(problemsOf("[ ]", "json")).toEqual([{ line: 1, field: "(body)", message: expect.any(String) }]);
  });
});

/** What a parse answers: the points, or the refusal's status and problems. */
async function outcomeOf(parse: () => Promise<unknown>): Promise<unknown> {
  try {
    return { points: await parse() };
  } catch (error) {
    if (!(error instanceof IngestBodyRejected)) throw error;
    return { status: error.status, problems: error.problems, problemCount: error.problemCount };
  }
}

/** The write-ahead log's replay of a body: logged, decoded, parsed whole. */
const replayed = (body: Buffer, format: "ndjson" | "json") =>
  outcomeOf(async () => {
    const logged = decodeLoggedRequest(encodeLoggedRequest({ format, body }));
    return parseIngestBuffer(logged.body, logged.format);
  });

describe("live acceptance and replay read a body alike", () => {
  const points = fc.record({
    tenant: fc.constantFrom("a", "b"),
    deviceId: fc.string({ minLength: 1, maxLength: 8 }),
    ts: fc.nat(),
    metrics: fc.dictionary(
      fc.constantFrom("x", "y", "é"),
      fc.double({ noNaN: true, noDefaultInfinity: true }),
      {
        minKeys: 1,
      },
    ),
  });
  const blank = fc.constantFrom("", " ", "\r", " \t\r");
  /** An NDJSON line and the points it should yield (undefined: a bad line). */
  const ndjsonLine = fc.oneof(
    points.map((p) => ({ text: JSON.stringify(p), points: [p] as unknown[] | undefined })),
    blank.map((text) => ({ text, points: [] as unknown[] | undefined })),
    fc
      .tuple(points, points, fc.constantFrom(",", " ", ""))
      .map(([a, b, gap]) => ({ text: `${JSON.stringify(a)}${gap}${JSON.stringify(b)}`, points: undefined })),
    fc.tuple(points, fc.nat(), fc.boolean()).map(([p, at, atComma]) => {
      // Split anywhere, or in place of a comma (then the halves joined by "," would be one point).
      const text = JSON.stringify(p);
      const cut = 1 + (at % (text.length - 1));
      const comma = text.indexOf(",", cut);
      const split =
        atComma && comma !== -1
          ? `${text.slice(0, comma)}\n${text.slice(comma + 1)}`
          : `${text.slice(0, cut)}\n${text.slice(cut)}`;
      return { text: split, points: undefined };
    }),
  );

  it("NDJSON: accepted exactly when every line is one point or blank, with the same points live and replayed", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(ndjsonLine, { maxLength: 12 }),
        fc.integer({ min: 1, max: 300 }),
        async (lines, sliceChars) => {
          const body = Buffer.from(lines.map((line) => line.text).join("\n"));
          const live = await outcomeOf(() => parseIngestBufferFairly(body, "ndjson", { sliceChars }));
          expect(live).toEqual(await replayed(body, "ndjson"));
          const valid = lines.every((line) => line.points !== undefined);
          const expected = lines.flatMap((line) => line.points ?? []);
          if (valid && expected.length > 0) {
            expect(live).toEqual({ points: JSON.parse(JSON.stringify(expected)) });
          } else expect(live).toMatchObject({ status: 400 });
        },
      ),
      { numRuns: 300 },
    );
  });

  it("JSON: an array read a slice at a time gives the points of one parse, and refusals match too", async () => {
    const damage = fc.option(fc.tuple(fc.nat(), fc.constantFrom("", ",", "]", "[", '"', "}")), {
      nil: undefined,
    });
    await fc.assert(
      fc.asyncProperty(
        fc.array(points, { maxLength: 10 }),
        fc.constantFrom("", " ", "\n "),
        fc.integer({ min: 1, max: 300 }),
        damage,
        async (items, space, sliceChars, cut) => {
          let text = `[${space}${items.map((p) => JSON.stringify(p)).join(`${space},${space}`)}${space}]`;
          if (cut) {
            const at = cut[0] % text.length;
            text = `${text.slice(0, at)}${cut[1]}${text.slice(at + 1)}`;
          }
          const body = Buffer.from(text);
          const live = await outcomeOf(() => parseIngestBufferFairly(body, "json", { sliceChars }));
          expect(live).toEqual(await replayed(body, "json"));
          let whole: unknown;
          try {
            whole = JSON.parse(text);
          } catch {
            whole = undefined;
          }
          if (whole === undefined) expect(live).toMatchObject({ status: 400 });
          else if (cut === undefined && items.length > 0)
            expect(live).toEqual({ points: JSON.parse(JSON.stringify(items)) });
        },
      ),
      { numRuns: 300 },
    );
  });
});
