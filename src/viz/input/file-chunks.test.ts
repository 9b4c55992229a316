import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { tempDirForTests } from "../temp-dir.fixture.js";
import { fileChunks } from "./file-chunks.js";

const dir = tempDirForTests("keyspread-chunks-");

describe("file chunks", () => {
  it("gives the file's bytes in order, in chunks of at most the size asked for", async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.uint8Array({ maxLength: 200 }),
        fc.integer({ min: 1, max: 64 }),
        async (content, size) => {
          const path = join(dir(), `file-${run++}`);
          await writeFile(path, content);
          const chunks: Buffer[] = [];
          // Copies: a chunk's buffer is read into again once the next chunk is asked for.
          for await (const chunk of fileChunks(path, size)) chunks.push(Buffer.from(chunk));
          expect(Buffer.concat(chunks)).toEqual(Buffer.from(content));
          expect(chunks.every((chunk) => chunk.length >= 1 && chunk.length <= size)).toBe(true);
        },
      ),
      { numRuns: 100 },
    );
  });

  it("lets the caller stop early, and names a bad chunk size", async () => {
    const path = join(dir(), "early");
    await writeFile(path, "abcdef");
    for await (const chunk of fileChunks(path, 2)) {
      expect(chunk.toString()).toBe("ab");
      break;
    }
    await expect(fileChunks(path, 0).next()).rejects.toThrow(
      expect.objectContaining({ name: "VizArgumentError", argument: "chunk bytes", value: 0 }),
    );
  });
});
