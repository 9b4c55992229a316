import { describe, expect, it } from "vitest";
import type { AccessRecord } from "../../access-log/access-record.js";
import { CanonicalAccessLine } from "../input/canonical-access-line.js";
import { KeptRecords } from "./kept-records.js";

const record = (kept: KeptRecords, text: string, tsMs: number): AccessRecord => ({
  tsMs,
  key: kept.parseKey(text),
  op: "read",
  bytes: 1,
});

describe("kept records", () => {
  it("parses each distinct key once, reporting it the first time, while records fit", () => {
    const seen: string[] = [];
    const kept = new KeptRecords(10, (key) => seen.push(key.toString("hex")));
    const first = record(kept, "t1#a", 1);
    expect(kept.add(first)).toBe(true);
    const again = record(kept, "t1#a", 2);
    expect(again.key).toBe(first.key);
    expect(kept.add(again)).toBe(true);
    expect(kept.add(record(kept, "hex:00ff", 3))).toBe(true);
    expect(seen).toEqual([Buffer.from("t1#a").toString("hex"), "00ff"]);
    expect({ count: kept.count, overflowed: kept.overflowed }).toEqual({ count: 3, overflowed: false });
  });

  it("numbers a key by its text whether its line was read in place or parsed, reporting it once", () => {
    const seen: string[] = [];
    const kept = new KeptRecords(10, (key) => seen.push(key.toString("hex")));
    const bytes = Buffer.from(
      '{"ts":5,"key":"hex:00ff","op":"write","bytes":3}\n{"ts":6,"key":"t1#a","op":"scan"}',
    );
    const line = new CanonicalAccessLine();
    expect(line.read(bytes, 0, bytes.indexOf("\n"))).toBe(true);
    expect(kept.addLine(line, bytes)).toBe(true);
    expect(kept.add(record(kept, "hex:00ff", 7))).toBe(true);
    expect(kept.add(record(kept, "t1#a", 8))).toBe(true);
    expect(line.read(bytes, bytes.indexOf("\n") + 1, bytes.length)).toBe(true);
    expect(kept.addLine(line, bytes)).toBe(true);
    expect(seen).toEqual(["00ff", Buffer.from("t1#a").toString("hex")]);
    const binned: unknown[] = [];
    kept.binInto({
      binOf: (key: Buffer) => key.length,
      addToBin: (...access: unknown[]) => binned.push(access),
    } as never);
    expect(binned).toEqual([
      [2, 5, "write", 3, undefined],
      [2, 7, "read", 1, undefined],
      [4, 8, "read", 1, undefined],
      [4, 6, "scan", 0, undefined],
    ]);
  });

  it("lets everything go once a record does not fit, and says the log must be read again", () => {
    const kept = new KeptRecords(2, () => {});
    expect(kept.add(record(kept, "a", 1))).toBe(true);
    expect(kept.add(record(kept, "b", 2))).toBe(true);
    expect(kept.add(record(kept, "c", 3))).toBe(false);
    expect({ count: kept.count, overflowed: kept.overflowed }).toEqual({ count: 0, overflowed: true });
    // Past the capacity a key is parsed afresh every time: nothing grows with the log.
    expect(kept.parseKey("a")).not.toBe(kept.parseKey("a"));
    expect(() => kept.binInto({} as never)).toThrow(
      expect.objectContaining({ name: "KeptRecordsOverflowError", capacity: 2 }),
    );
  });

  it("refuses a record whose key it did not parse", () => {
    const kept = new KeptRecords(2, () => {});
    kept.parseKey("a");
    expect(() => kept.add({ tsMs: 1, key: Buffer.from("a"), op: "read", bytes: 0 })).toThrow(/parseKey/);
  });

  it("rejects a capacity that is not a whole number", () => {
    expect(() => new KeptRecords(-1, () => {})).toThrow(
      expect.objectContaining({ name: "VizArgumentError", argument: "kept records", value: -1 }),
    );
  });
});
