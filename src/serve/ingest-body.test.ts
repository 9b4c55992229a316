import { describe, expect, it } from "vitest";
import { BodyRejected, bodyFormatOf, parseIngestBody } from "./ingest-body.js";

const good = { tenant: "acme", deviceId: "d1", ts: 1_764_484_000_000, metrics: { cpu: 0.5 } };

function problemsOf(text: string, format: "ndjson" | "json") {
  try {
    parseIngestBody(text, format);
  } catch (error) {
    if (error instanceof BodyRejected) return error.problems;
    throw error;
  }
  throw new Error("expected a rejection");
}

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
      expect((error as BodyRejected).problems).toHaveLength(100);
      expect((error as BodyRejected).problemCount).toBe(150);
      expect((error as BodyRejected).message).toMatch(/^150 problems in the body, first at line 1/);
    }
  });

  it("maps content types", () => {
    expect(bodyFormatOf("application/x-ndjson")).toBe("ndjson");
    expect(bodyFormatOf("application/json; charset=utf-8")).toBe("json");
    expect(bodyFormatOf("text/plain")).toBeUndefined();
    expect(bodyFormatOf(undefined)).toBeUndefined();
  });
});
