import { inflateRawSync } from "node:zlib";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { packData } from "./packed-data.js";
import { packData as packForBrowser } from "./packed-data-browser.js";

const unpack = (packed: string) => inflateRawSync(Buffer.from(packed, "base64")).toString("utf8");

describe("the heatmap page's packed data", () => {
  it("inflates back to the JSON, packed by Node or by the browser's stored blocks, from text or its UTF-8 bytes", () => {
    fc.assert(
      fc.property(fc.string({ unit: "grapheme", maxLength: 300 }), (json) => {
        expect(unpack(packData(json))).toBe(json);
        expect(unpack(packForBrowser(json))).toBe(json);
      }),
    );
    fc.assert(
      fc.property(fc.string({ unit: "grapheme", maxLength: 300 }), (json) => {
        const bytes = new TextEncoder().encode(json);
        expect(packData(bytes)).toBe(packData(json));
        expect(packForBrowser(bytes)).toBe(packForBrowser(json));
      }),
    );
    // Over one stored block (65,535 bytes), and empty.
    const long = "é".repeat(70_000);
    expect(unpack(packForBrowser(long))).toBe(long);
    expect(unpack(packForBrowser(""))).toBe("");
  });
});
