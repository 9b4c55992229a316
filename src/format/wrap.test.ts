import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { wrapText } from "./wrap.js";

describe("wrapText", () => {
  it("breaks at spaces with a hanging indent", () => {
    expect(wrapText("one two three four", 10, "- ", "  ")).toEqual(["- one two", "  three", "  four"]);
  });

  it("keeps every word, in order, and no line is wider than the width unless one word is", () => {
    const words = fc.array(fc.stringMatching(/^[a-z%.,()-]{1,14}$/), { maxLength: 40 });
    fc.assert(
      fc.property(words, fc.integer({ min: 8, max: 60 }), (list, width) => {
        const lines = wrapText(list.join(" "), width, "* ", "  ");
        expect(lines.join(" ").replace(/^\* /, "").split(/\s+/).filter(Boolean)).toEqual(list);
        for (const line of lines) if (line.length > width) expect(line.slice(2).includes(" ")).toBe(false);
      }),
    );
  });
});
