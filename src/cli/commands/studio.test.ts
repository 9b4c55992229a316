import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { CROSS_ORIGIN_ISOLATED } from "./studio.js";

describe("keyspread studio's cross-origin isolation", () => {
  it("is what the static build's _headers declares for static hosts", () => {
    const file = readFileSync(new URL("../../studio/page/public/_headers", import.meta.url), "utf8");
    const declared = Object.fromEntries(
      file
        .split("\n")
        .filter((line) => /^\s+\S+:/.test(line))
        .map((line) => {
          const [name = "", ...value] = line.trim().split(":");
          return [name.toLowerCase(), value.join(":").trim()];
        }),
    );
    expect(declared).toEqual(CROSS_ORIGIN_ISOLATED);
  });
});
