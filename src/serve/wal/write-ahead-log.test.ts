import { readdirSync } from "node:fs";
import { appendFile, mkdtemp, readdir, readFile, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type DiskFaults, faultyDisk } from "./faulty-disk.testsuite.js";
import { nodeWalFileSystem } from "./wal-file-system.js";
import { parseSegment, RECORD_HEADER_BYTES, recordHeader } from "./wal-record.js";
import { WalDirectoryInUse, WalOfAnotherTable, WriteAheadLog } from "./write-ahead-log.js";

const TARGET = "embedded:x/metrics (schema ks1-test)";
const frame = (text: string) => {
  const payload = Buffer.from(text);
  return Buffer.concat([recordHeader(payload), payload]);
};
const texts = (payloads: Buffer[]) => payloads.map(String);

describe("WriteAheadLog", () => {
  it("replays the records of every segment left behind, and drops a torn tail silently", async () => {
    const directory = await mkdtemp(join(tmpdir(), "wal-"));
    const { wal, leftover } = await WriteAheadLog.open(directory, TARGET);
    expect(leftover).toEqual([]);
    const first = await wal.createSegment(1000);
    await Promise.all(["a", "bb", "ccc"].map((text) => first.append(Buffer.from(text))));
    await first.close();
    const second = await wal.createSegment(2000);
    await second.append(Buffer.from("d"));
    await second.close();
    // A crash mid-append: the header of a 9-byte record and 2 of its bytes.
    await appendFile(wal.pathOf(2000), frame("123456789").subarray(0, RECORD_HEADER_BYTES + 2));
    await wal.release();

    const again = await WriteAheadLog.open(directory, TARGET);
    expect(again.leftover).toEqual([1000, 2000]);
    const recovered = await Promise.all(again.leftover.map((id) => again.wal.readSegment(id)));
    expect(recovered.map((s) => [s.id, texts(s.payloads), s.tornBytes, s.corrupt])).toEqual([
      [1000, ["a", "bb", "ccc"], 0, []],
      [2000, ["d"], RECORD_HEADER_BYTES + 2, []],
    ]);
    await again.wal.removeSegment(1000);
    expect((await readdir(directory)).sort()).toEqual([
      "0000000002000.wal",
      "idempotency",
      "lock",
      "owner.pid",
      "target",
    ]);
    await again.wal.release();
  });

  it("fsyncs the directory after deleting a segment, so a power loss cannot bring it back", async () => {
    const directory = await mkdtemp(join(tmpdir(), "wal-unlink-"));
    /** Every directory fsync, with the directory's entries at that moment. */
    const directorySyncs: { directory: string; entries: string[] }[] = [];
    const disk: DiskFaults = {};
    const { wal } = await WriteAheadLog.open(directory, TARGET, faultyDisk(nodeWalFileSystem, disk));
    await (await wal.createSegment(1)).close();
    disk.syncingDirectory = (synced) =>
      directorySyncs.push({ directory: synced, entries: readdirSync(synced).sort() });
    await wal.removeSegment(1);
    expect(directorySyncs).toEqual([{ directory, entries: ["idempotency", "lock", "owner.pid", "target"] }]);
    await wal.release();
  });

  it("cuts a commit that failed on a full disk off the file, so it never replays, and goes on", async () => {
    const directory = await mkdtemp(join(tmpdir(), "wal-full-"));
    const disk: DiskFaults = {};
    const { wal } = await WriteAheadLog.open(directory, TARGET, faultyDisk(nodeWalFileSystem, disk));
    const segment = await wal.createSegment(1);
    await segment.append(Buffer.from("acknowledged"));
    const enospc = Object.assign(new Error("ENOSPC: no space left on device, write"), { code: "ENOSPC" });
    disk.write = (bytes) => ({ error: enospc, written: Math.floor(bytes / 2) });
    await expect(segment.append(Buffer.from("refused"))).rejects.toMatchObject({ cause: enospc });
    expect((await stat(wal.pathOf(1))).size).toBe(RECORD_HEADER_BYTES + "acknowledged".length);
    disk.write = undefined;
    await segment.append(Buffer.from("after"));
    await segment.close();
    expect(texts(parseSegment(await readFile(wal.pathOf(1))).payloads)).toEqual(["acknowledged", "after"]);
    await wal.release();
  });

  it("refuses an append whose fsync failed and cuts it off the file; gives the segment up when the cut's fsync fails too", async () => {
    const directory = await mkdtemp(join(tmpdir(), "wal-fsync-"));
    const disk: DiskFaults = {};
    const { wal } = await WriteAheadLog.open(directory, TARGET, faultyDisk(nodeWalFileSystem, disk));
    const segment = await wal.createSegment(1);
    await segment.append(Buffer.from("acknowledged"));
    const eio = Object.assign(new Error("EIO: i/o error, fdatasync"), { code: "EIO" });
    // Once: the commit's fsync fails, the one after the cut succeeds.
    disk.datasync = () => {
      disk.datasync = undefined;
      return eio;
    };
    await expect(segment.append(Buffer.from("unsynced"))).rejects.toMatchObject({ cause: eio });
    expect((await stat(wal.pathOf(1))).size).toBe(RECORD_HEADER_BYTES + "acknowledged".length);
    await segment.append(Buffer.from("after"));
    expect(segment.failed).toBe(false);

    // Every fsync fails: the tail cannot be trusted, and the segment refuses what follows.
    disk.datasync = () => eio;
    await expect(segment.append(Buffer.from("lost"))).rejects.toMatchObject({ cause: { cause: eio } });
    expect(segment.failed).toBe(true);
    disk.datasync = undefined;
    await expect(segment.append(Buffer.from("later"))).rejects.toMatchObject({ cause: { cause: eio } });
    await segment.close();
    expect(texts(parseSegment(await readFile(wal.pathOf(1))).payloads)).toEqual(["acknowledged", "after"]);
    await wal.release();
  });
});

describe("parseSegment", () => {
  const records = ["first", "second", "third"].map(frame);

  it("skips a record whose payload checksum fails, reports it, and reads the rest", () => {
    const bytes = Buffer.concat(records);
    bytes[records[0]!.length + RECORD_HEADER_BYTES + 2]! ^= 0x10;
    const parsed = parseSegment(bytes);
    expect(texts(parsed.payloads)).toEqual(["first", "third"]);
    expect(parsed.corrupt).toEqual([{ offset: records[0]!.length, bytes: records[1]!.length }]);
    expect(parsed.tornBytes).toBe(0);
  });

  it("never trusts a damaged length: finds the next record", () => {
    const bytes = Buffer.concat(records);
    bytes[records[0]!.length + 5]! ^= 0x01;
    const parsed = parseSegment(bytes);
    expect(texts(parsed.payloads)).toEqual(["first", "third"]);
    expect(parsed.corrupt).toEqual([{ offset: records[0]!.length, bytes: records[1]!.length }]);
  });

  it("counts damage in the last whole record as corruption, not as a torn tail", () => {
    const bytes = Buffer.concat(records);
    bytes[bytes.length - 1]! ^= 0x80;
    const parsed = parseSegment(bytes);
    expect(texts(parsed.payloads)).toEqual(["first", "second"]);
    expect(parsed.corrupt).toHaveLength(1);
    expect(parsed.tornBytes).toBe(0);
  });

  it("counts an all-zero tail that could have held a whole record as damage; a shorter one is a torn tail", () => {
    const whole = records[2]!.length;
    const zeroed = Buffer.concat(records);
    zeroed.fill(0, zeroed.length - whole);
    expect(parseSegment(zeroed)).toMatchObject({
      tornBytes: 0,
      corrupt: [{ offset: zeroed.length - whole, bytes: whole }],
    });
    expect(texts(parseSegment(zeroed).payloads)).toEqual(["first", "second"]);
    const short = parseSegment(Buffer.concat([...records, Buffer.alloc(RECORD_HEADER_BYTES - 1)]));
    expect(short).toMatchObject({ tornBytes: RECORD_HEADER_BYTES - 1, corrupt: [] });
    expect(short.payloads).toHaveLength(3);
  });

  it("reports a segment without framed records as one corrupt range, reading nothing from it", () => {
    const unframed = (text: string) => {
      const payload = Buffer.from(text);
      const header = Buffer.alloc(8);
      header.writeUInt32LE(payload.length, 0);
      header.writeUInt32LE(recordHeader(payload).readUInt32LE(8), 4);
      return Buffer.concat([header, payload]);
    };
    const bytes = Buffer.concat([unframed("old"), unframed("older"), Buffer.from([3, 0])]);
    expect(parseSegment(bytes)).toEqual({
      payloads: [],
      tornBytes: 0,
      corrupt: [{ offset: 0, bytes: bytes.length }],
    });
  });

  it("loses only the damaged record to any one flipped bit", () => {
    fc.assert(
      fc.property(
        fc.array(fc.string({ minLength: 0, maxLength: 40 }), { minLength: 1, maxLength: 8 }),
        fc.nat(),
        fc.integer({ min: 0, max: 7 }),
        (payloads, position, bit) => {
          const framed = payloads.map(frame);
          const bytes = Buffer.concat(framed);
          const at = position % bytes.length;
          bytes[at]! ^= 1 << bit;
          let start = 0;
          const hit = framed.findIndex((record) => {
            start += record.length;
            return at < start;
          });
          const parsed = parseSegment(bytes);
          expect(texts(parsed.payloads)).toEqual(payloads.filter((_, index) => index !== hit));
          expect(parsed.corrupt).toHaveLength(1);
          expect(parsed.tornBytes).toBe(0);
        },
      ),
    );
  });
});

describe("WriteAheadLog ownership", () => {
  it("refuses a directory another service holds, naming it, and is free again once released", async () => {
    const directory = await mkdtemp(join(tmpdir(), "wal-"));
    const { wal } = await WriteAheadLog.open(directory, TARGET);
    await expect(WriteAheadLog.open(directory, TARGET)).rejects.toThrow(
      expect.objectContaining({ name: WalDirectoryInUse.name, directory, ownerPid: process.pid }),
    );
    await wal.release();
    const again = await WriteAheadLog.open(directory, TARGET);
    await again.wal.release();
    // A stale owner.pid (a process that died) holds nothing: the lock went with its process.
    await writeFile(join(directory, "owner.pid"), "999999999\n");
    const taken = await WriteAheadLog.open(directory, TARGET);
    await taken.wal.release();
  });

  it("keeps the directory claimed while the journal is closed (as when it reopens after a failed write)", async () => {
    const directory = await mkdtemp(join(tmpdir(), "wal-claim-"));
    const { wal } = await WriteAheadLog.open(directory, TARGET);
    await wal.journal.close();
    await expect(WriteAheadLog.open(directory, TARGET)).rejects.toThrow(
      expect.objectContaining({ name: WalDirectoryInUse.name, ownerPid: process.pid }),
    );
    await wal.release();
  });

  it("refuses a log written for another table instead of replaying it there", async () => {
    const directory = await mkdtemp(join(tmpdir(), "keyspread-wal-target-"));
    const { wal } = await WriteAheadLog.open(directory, TARGET);
    await wal.release();
    await expect(WriteAheadLog.open(directory, "memory:metrics (schema ks1-test)")).rejects.toThrow(
      expect.objectContaining({
        name: WalOfAnotherTable.name,
        directory,
        recorded: TARGET,
        target: "memory:metrics (schema ks1-test)",
      }),
    );
  });
});
