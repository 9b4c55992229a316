import { appendFile, mkdtemp, readdir, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { WriteAheadLog } from "./write-ahead-log.js";

describe("WriteAheadLog", () => {
  it("replays the records of every segment left behind, and ignores a torn tail", async () => {
    const directory = await mkdtemp(join(tmpdir(), "wal-"));
    const { wal, recovered } = await WriteAheadLog.open(directory);
    expect(recovered).toEqual([]);
    const first = await wal.createSegment(1000);
    await Promise.all(["a", "bb", "ccc"].map((text) => first.append(Buffer.from(text))));
    await first.close();
    const second = await wal.createSegment(2000);
    await second.append(Buffer.from("d"));
    await second.close();
    await appendFile(wal.pathOf(2000), Buffer.from([9, 0, 0, 0, 1, 2]));

    const again = await WriteAheadLog.open(directory);
    expect(again.recovered.map((s) => [s.id, s.payloads.map(String), s.tornBytes])).toEqual([
      [1000, ["a", "bb", "ccc"], 0],
      [2000, ["d"], 6],
    ]);
    await again.wal.removeSegment(1000);
    expect((await readdir(directory)).sort()).toEqual(["0000000002000.wal", "owner.pid"]);
  });

  it("stops at a record whose checksum does not match", async () => {
    const directory = await mkdtemp(join(tmpdir(), "wal-"));
    const { wal } = await WriteAheadLog.open(directory);
    const segment = await wal.createSegment(1);
    await segment.append(Buffer.from("good"));
    await segment.close();
    await appendFile(wal.pathOf(1), Buffer.from([1, 0, 0, 0, 0, 0, 0, 0, 0x41]));
    const { recovered } = await WriteAheadLog.open(directory);
    expect(recovered[0]!.payloads.map(String)).toEqual(["good"]);
    expect(recovered[0]!.tornBytes).toBe(9);
  });
});

describe("WriteAheadLog ownership", () => {
  it("refuses a directory claimed by a live process and takes over a dead one's", async () => {
    const directory = await mkdtemp(join(tmpdir(), "wal-"));
    await writeFile(join(directory, "owner.pid"), `${process.ppid}\n`);
    await expect(WriteAheadLog.open(directory)).rejects.toThrow(
      /is in use by process \d+; give each service its own/,
    );
    await writeFile(join(directory, "owner.pid"), "999999999\n");
    const { wal } = await WriteAheadLog.open(directory);
    await wal.release();
    expect(await readdir(directory)).toEqual([]);
  });
});
