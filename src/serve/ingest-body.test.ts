import fc from "fast-check";
import { describe, expect, it } from "vitest";
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
      { line: 5, field: "(line)", message: expect.stringMatching(/expected an object/) },
    ]);
  });

  it("does not let one line smuggle two values", () => {
    const line = JSON.stringify(good);
    expect(problemsOf(`${line}, ${line}`, "ndjson")[0]).toMatchObject({ line: 1, field: "(line)" });
  });

  it("rejects an empty body and missing fields", () => {
    expect(problemsOf("\n", "ndjson")[0]!.message).toMatch(/no points/);
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
    try {
      parseIngestBody(body, "ndjson");
    } catch (error) {
      expect((error as IngestBodyRejected).problems).toHaveLength(100);
      expect((error as IngestBodyRejected).problemCount).toBe(150);
      expect((error as IngestBodyRejected).message).toMatch(/^150 problems in the body, first at line 1/);
    }
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
      expect(rejectionOf(() => parseIngestBody(deep(100_000), format)).problems[0]!.message).toMatch(
        /expected an object .*got an array of 1/,
      );
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
});
