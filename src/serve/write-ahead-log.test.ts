import { appendFile, mkdtemp, readdir, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { WriteAheadLog } from "./write-ahead-log.js";

const TARGET = "embedded:x/metrics (schema ks1-test)";

describe("WriteAheadLog", () => {
  it("replays the records of every segment left behind, and ignores a torn tail", async () => {
    const directory = await mkdtemp(join(tmpdir(), "wal-"));
    const { wal, recovered } = await WriteAheadLog.open(directory, TARGET);
    expect(recovered).toEqual([]);
    const first = await wal.createSegment(1000);
    await Promise.all(["a", "bb", "ccc"].map((text) => first.append(Buffer.from(text))));
    await first.close();
    const second = await wal.createSegment(2000);
    await second.append(Buffer.from("d"));
    await second.close();
    await appendFile(wal.pathOf(2000), Buffer.from([9, 0, 0, 0, 1, 2]));

    const again = await WriteAheadLog.open(directory, TARGET);
    expect(again.recovered.map((s) => [s.id, s.payloads.map(String), s.tornBytes])).toEqual([
      [1000, ["a", "bb", "ccc"], 0],
      [2000, ["d"], 6],
    ]);
    await again.wal.removeSegment(1000);
    expect((await readdir(directory)).sort()).toEqual(["0000000002000.wal", "owner.pid", "target"]);
  });

  it("stops at a record whose checksum does not match", async () => {
    const directory = await mkdtemp(join(tmpdir(), "wal-"));
    const { wal } = await WriteAheadLog.open(directory, TARGET);
    const segment = await wal.createSegment(1);
    await segment.append(Buffer.from("good"));
    await segment.close();
    await appendFile(wal.pathOf(1), Buffer.from([1, 0, 0, 0, 0, 0, 0, 0, 0x41]));
    const { recovered } = await WriteAheadLog.open(directory, TARGET);
    expect(recovered[0]!.payloads.map(String)).toEqual(["good"]);
    expect(recovered[0]!.tornBytes).toBe(9);
  });
});

describe("WriteAheadLog ownership", () => {
  it("refuses a directory claimed by a live process and takes over a dead one's", async () => {
    const directory = await mkdtemp(join(tmpdir(), "wal-"));
    await writeFile(join(directory, "owner.pid"), `${process.ppid}\n`);
    await expect(WriteAheadLog.open(directory, TARGET)).rejects.toThrow(
      /is in use by process \d+; give each service its own/,
    );
    await writeFile(join(directory, "owner.pid"), "999999999\n");
    const { wal } = await WriteAheadLog.open(directory, TARGET);
    await wal.release();
    // The claim is released; the record of which table the log feeds stays.
    expect(await readdir(directory)).toEqual(["target"]);
  });

  it("refuses a log written for another table instead of replaying it there", async () => {
    const directory = await mkdtemp(join(tmpdir(), "keyspread-wal-target-"));
    const { wal } = await WriteAheadLog.open(directory, TARGET);
    await wal.release();
    await expect(WriteAheadLog.open(directory, "memory:metrics (schema ks1-test)")).rejects.toThrow(
      /holds points for embedded:x\/metrics .*not memory:metrics/,
    );
  });
});
