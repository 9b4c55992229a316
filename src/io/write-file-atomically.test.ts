import { mkdtemp, readdir, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it, vi } from "vitest";
import { writeFileAtomically } from "./write-file-atomically.js";

/** Every directory fsync, with the directory's entries and the target's content at that moment. */
const directorySyncs = vi.hoisted(() => [] as { directory: string; entries: string[]; content: string }[]);
vi.mock("./sync-directory.js", async (importOriginal) => {
  const real = await importOriginal<typeof import("./sync-directory.js")>();
  const { readdirSync, readFileSync } = await import("node:fs");
  return {
    syncDirectory: (directory: string) => {
      directorySyncs.push({
        directory,
        entries: readdirSync(directory).sort(),
        content: readFileSync(`${directory}/state.json`, "utf8"),
      });
      real.syncDirectory(directory);
    },
  };
});

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

  it("fsyncs the directory after a durable rename, so a power loss cannot bring the old file back", async () => {
    const dir = await mkdtemp(join(tmpdir(), "keyspread-atomic-sync-"));
    await writeFile(join(dir, "state.json"), "old");
    directorySyncs.length = 0;
    await writeFileAtomically(join(dir, "state.json"), "new", { durable: true });
    expect(directorySyncs).toEqual([{ directory: dir, entries: ["state.json"], content: "new" }]);
  });
});
