import { spawnSync } from "node:child_process";
import { mkdtemp, readdir, readFile, utimes, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setImmediate as tick } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { withFileLock } from "./file-lock.js";

/** The pid of a process that has exited. */
function deadPid(): number {
  return spawnSync(process.execPath, ["-e", ""]).pid!;
}

async function lockedFile(lockText: string, ageMs = 0): Promise<string> {
  const directory = await mkdtemp(join(tmpdir(), "file-lock-"));
  const file = join(directory, "keys.json");
  await writeFile(`${file}.lock`, lockText);
  const at = (Date.now() - ageMs) / 1000;
  await utimes(`${file}.lock`, at, at);
  return file;
}

describe("withFileLock", () => {
  it("takes over an empty lock a second old (a writer that died before naming itself)", async () => {
    const file = await lockedFile("", 60_000);
    expect(await withFileLock(file, "test", async () => "ran")).toBe("ran");
    expect(await readdir(join(file, ".."))).toEqual([]);
  });

  it("lets exactly one of many takers that saw the same dead holder hold the lock at a time; no update is lost", async () => {
    const file = await lockedFile(`${deadPid()}\n`);
    await writeFile(file, "0");
    let holding = 0;
    let mostAtOnce = 0;
    const increment = () =>
      withFileLock(file, "test", async () => {
        holding++;
        mostAtOnce = Math.max(mostAtOnce, holding);
        const count = Number(await readFile(file, "utf8"));
        await tick();
        await writeFile(file, String(count + 1));
        holding--;
      });
    // Started a few event-loop turns apart, so some see the stale lock while others take it over.
    const takers = Array.from({ length: 16 }, async (_, i) => {
      for (let turn = 0; turn < i; turn++) await tick();
      await increment();
    });
    await Promise.all(takers);
    expect({ count: await readFile(file, "utf8"), mostAtOnce }).toEqual({ count: "16", mostAtOnce: 1 });
    expect(await readdir(join(file, ".."))).toEqual(["keys.json"]);
  });

  it("waits for a live holder, then names it", async () => {
    const file = await lockedFile(`${process.pid}\n`);
    const start = Date.now();
    await expect(withFileLock(file, "test", async () => "ran")).rejects.toThrow(
      new RegExp(`test lock .* is held by process ${process.pid}; try again`),
    );
    expect(Date.now() - start).toBeGreaterThanOrEqual(4_000);
  }, 30_000);
});
