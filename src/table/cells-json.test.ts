import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { cellsFromJson, cellsToJson } from "./cells-json.js";

describe("cells as JSON", () => {
  it("writes text as strings and other bytes as {hex}, so `hex:41` text stays text", () => {
    const cells = new Map([
      ["text", Buffer.from("hex:41")],
      ["binary", Buffer.from([0xff, 0x00])],
      ["empty", Buffer.alloc(0)],
    ]);
    expect(cellsToJson(cells)).toEqual({ text: "hex:41", binary: { hex: "ff00" }, empty: "" });
    expect(cellsFromJson(JSON.parse(JSON.stringify(cellsToJson(cells))))).toEqual(cells);
    expect(cellsFromJson({ n: 42 }).get("n")?.toString()).toBe("42");
  });

  it("keeps a cell named __proto__ (or constructor) as a cell", () => {
    const cells = new Map([
      ["__proto__", Buffer.from("x")],
      ["constructor", Buffer.from([0xff])],
    ]);
    const json = JSON.stringify(cellsToJson(cells));
    expect(json).toBe('{"__proto__":"x","constructor":{"hex":"ff"}}');
    expect(cellsFromJson(JSON.parse(json))).toEqual(cells);
  });

  it("round-trips any bytes", () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string({ minLength: 1 }), fc.uint8Array()), (input) => {
        const cells = new Map(Object.entries(input).map(([k, v]) => [k, Buffer.from(v)]));
        expect(cellsFromJson(JSON.parse(JSON.stringify(cellsToJson(cells))))).toEqual(cells);
      }),
    );
  });

  it("names the cell and the allowed forms", () => {
    const refused = (input: unknown, cell: string | undefined, value: unknown) =>
      expect(() => cellsFromJson(input)).toThrow(
        expect.objectContaining({ name: "CellsJsonError", cell, value }),
      );
    refused({ a: true }, "a", true);
    refused({ a: { hex: "abc" } }, "a", { hex: "abc" });
    refused({ a: { hex: "ab", extra: 1 } }, "a", { hex: "ab", extra: 1 });
    refused([], undefined, []);
    refused({ "": "x" }, "", "x");
  });
});
