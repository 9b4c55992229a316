import { mkdtemp, readdir, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { writeFileAtomically } from "./write-file-atomically.js";

describe("writeFileAtomically", () => {
  it("replaces the file whole and leaves no temporary file behind", async () => {
    const dir = await mkdtemp(join(tmpdir(), "keyspread-atomic-"));
    const path = join(dir, "state.json");
    await writeFile(path, "old");
    await writeFileAtomically(path, "new", { durable: true });
    await writeFileAtomically(join(dir, "image.bin"), Buffer.from([1, 2, 3]));
    expect(await readFile(path, "utf8")).toBe("new");
    expect(await readFile(join(dir, "image.bin"))).toEqual(Buffer.from([1, 2, 3]));
    expect((await readdir(dir)).sort()).toEqual(["image.bin", "state.json"]);
  });
});
