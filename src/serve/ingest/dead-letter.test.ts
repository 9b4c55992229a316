import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { mountSmallFilesystem } from "../../io/small-filesystem.testsuite.js";
import { type DeadLetter, DeadLetterFile } from "./dead-letter.js";

const letters = (count: number, from = 0): DeadLetter[] =>
  Array.from({ length: count }, (_, i) => ({
    segment: 1,
    reason: "the store refused it",
    table: "embedded:t",
    row: {
      tenant: "t",
      deviceId: `d${from + i}`,
      interval: 0,
      points: [{ tenant: "t", deviceId: `d${from + i}`, ts: from + i, metrics: { v: 1 } }],
    },
  }));

describe("DeadLetterFile on a disk that fills up", () => {
  it("cuts an append the full disk refused off the file, so every line of the retry parses", async (ctx) => {
    const disk = await mountSmallFilesystem(4 * 1024 * 1024);
    if (typeof disk === "string") return ctx.skip(disk);
    try {
      const file = new DeadLetterFile(join(disk.path, "dead-letter.jsonl"));
      await file.append(letters(1));
      await disk.fill(16 * 1024);
      await expect(file.append(letters(2000, 1))).rejects.toThrow(/ENOSPC/);
      await disk.free();
      await file.append(letters(2000, 1));
      const lines = (await readFile(file.path, "utf8")).trim().split("\n");
      expect(lines.map((line) => (JSON.parse(line) as { row: { deviceId: string } }).row.deviceId)).toEqual(
        letters(2001).map((letter) => ("row" in letter ? letter.row.deviceId : "")),
      );
    } finally {
      await disk.unmount();
    }
  });
});
