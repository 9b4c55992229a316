import { hash } from "node:crypto";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import * as node from "./digest.js";
import * as browser from "./digest-browser.js";

describe("the browser's digests equal Node's", () => {
  it("MD5 over any bytes, across block boundaries", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 200 }), (bytes) => {
        expect(Buffer.from(browser.md5(bytes)).toString("hex")).toBe(
          Buffer.from(node.md5(bytes)).toString("hex"),
        );
      }),
    );
  });

  it("SHA-256 over any text, including multi-byte characters", () => {
    fc.assert(
      fc.property(fc.string({ unit: "grapheme", maxLength: 150 }), (text) => {
        expect(browser.sha256Hex(text)).toBe(node.sha256Hex(text));
      }),
    );
    expect(browser.sha256Hex("abc")).toBe(hash("sha256", "abc", "hex"));
  });
});
