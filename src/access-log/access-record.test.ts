import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  parseAccessCsvHeader,
  parseAccessCsvRecord,
  parseAccessJsonRecord,
  quickJsonTimeAndKey,
} from "./access-record.js";

describe("access records", () => {
  it("parses JSONL with ISO or epoch-ms timestamps and hex keys", () => {
    expect(
      parseAccessJsonRecord('{"ts":"2026-11-30T06:00:00Z","key":"t1#e2","op":"read","latencyMs":3}'),
    ).toEqual({
      tsMs: Date.UTC(2026, 10, 30, 6),
      key: Buffer.from("t1#e2"),
      op: "read",
      bytes: 0,
      latencyMs: 3,
    });
    const binary = parseAccessJsonRecord('{"ts":1000,"key":"hex:00ff","op":"write","bytes":10,"node":"n1"}');
    expect(binary).toMatchObject({ tsMs: 1000, key: Buffer.from([0, 255]), bytes: 10, node: "n1" });
  });

  it("parses CSV by header, columns in any order", () => {
    const columns = parseAccessCsvHeader("op,key,ts,bytes");
    expect(parseAccessCsvRecord("scan,t1#e2,1500,20", columns)).toEqual({
      tsMs: 1500,
      key: Buffer.from("t1#e2"),
      op: "scan",
      bytes: 20,
    });
  });

  it("names the field, the value and what is allowed", () => {
    expect(() => parseAccessJsonRecord('{"ts":1,"key":"k","op":"delete"}')).toThrow(
      'op "delete": expected read, write or scan',
    );
    expect(() => parseAccessJsonRecord('{"ts":"yesterday","key":"k","op":"read"}')).toThrow(
      /^ts "yesterday"/,
    );
    expect(() => parseAccessJsonRecord('{"ts":1,"key":7,"op":"read"}')).toThrow(
      expect.objectContaining({ field: "key", value: 7, allowed: "text (or hex:… for binary keys)" }),
    );
    expect(() => parseAccessJsonRecord('{"ts":1,"key":"hex:0","op":"read"}')).toThrow(
      expect.objectContaining({ name: "AccessRecordError", field: "key", value: "hex:0" }),
    );
    expect(() => parseAccessJsonRecord("{not json")).toThrow(
      expect.objectContaining({ field: "line", value: "{not json", allowed: "one JSON object per line" }),
    );
    expect(() => parseAccessJsonRecord('{"ts":1,"key":"k","op":"read","bytes":-1}')).toThrow(/bytes -1/);
    expect(() => parseAccessCsvHeader("ts,key")).toThrow(
      expect.objectContaining({ field: "header", value: "ts,key", allowed: "columns ts, key and op" }),
    );
    expect(() => parseAccessCsvHeader("ts,key,op,size")).toThrow(
      expect.objectContaining({
        field: "header",
        value: "size",
        allowed: expect.stringMatching(/^one of ts, key, op/),
      }),
    );
    expect(() => parseAccessCsvRecord('1,"a,b",read', parseAccessCsvHeader("ts,key,op"))).toThrow(
      expect.objectContaining({ name: "AccessRecordError", field: "line", value: '1,"a,b",read' }),
    );
  });

  it("reads ts and key quickly for sampling, agreeing with the full parse", () => {
    const lines = [
      '{"ts":1500,"key":"t1#e2","op":"read"}',
      '{ "op": "write", "key" : "hex:00ff", "ts" : "2026-11-30T06:00:00Z" }',
      '{"ts":7,"key":"a\\"quoted\\"#b","op":"read"}',
      '{"key":"x","op":"scan","ts":"1700000000000"}',
    ];
    for (const line of lines) {
      const { tsMs, key } = parseAccessJsonRecord(line);
      expect(quickJsonTimeAndKey(line)).toMatchObject({ tsMs, key });
    }
    expect(() => quickJsonTimeAndKey('{"ts":1,"key":"hex:0"}')).toThrow(
      expect.objectContaining({ field: "key", value: "hex:0" }),
    );
  });

  it("reads a line in the common field order as JSON.parse reads the same object spaced out", () => {
    const number = fc.oneof(
      fc.nat(),
      fc.double({ min: 0, max: 1e25, noNaN: true }),
      fc.constantFrom(-1, 1e21, 1e22, 0.5, 1e-7),
    );
    const line = fc
      .record(
        {
          ts: fc.oneof(number, fc.constant("2026-11-30T06:00:00Z")),
          key: fc.oneof(fc.string(), fc.constantFrom("hex:00ff", "hex:0", 'a"b', "a\\b", "tab\t", "é")),
          op: fc.constantFrom("read", "write", "scan", "erase"),
          bytes: number,
          latencyMs: number,
        },
        { requiredKeys: ["ts", "key", "op"] },
      )
      .map((fields) => JSON.stringify(fields));
    const outcome = (text: string) => {
      try {
        return parseAccessJsonRecord(text);
      } catch (error) {
        return (error as Error).message;
      }
    };
    fc.assert(
      fc.property(line, (text) => {
        expect(outcome(text)).toEqual(outcome(JSON.stringify(JSON.parse(text), null, 1)));
      }),
      { numRuns: 2000 },
    );
  });
});
