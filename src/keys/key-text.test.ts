import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { KeyTextError } from "./errors.js";
import { displayKey, parseKeyText } from "./key-text.js";

describe("key text", () => {
  it("shows printable keys as text and others as hex:", () => {
    expect(displayKey(Buffer.from("t01#e42"))).toBe("t01#e42");
    expect(displayKey(Buffer.from([0, 255]))).toBe("hex:00ff");
    expect(displayKey(Buffer.from("hex:zz"))).toBe("hex:6865783a7a7a");
  });

  it("parses what it displays back to the same bytes", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 20 }), (bytes) => {
        const key = Buffer.from(bytes);
        expect(parseKeyText(displayKey(key)).equals(key)).toBe(true);
      }),
    );
  });

  it("names the bad hex", () => {
    expect(() => parseKeyText("hex:abc")).toThrow(
      expect.objectContaining({ name: "KeyTextError", text: "hex:abc" }),
    );
    expect(() => parseKeyText("hex:abc")).toThrow(KeyTextError);
  });
});
