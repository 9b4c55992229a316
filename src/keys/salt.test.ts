import { describe, expect, it } from "vitest";
import { binarySaltPrefix, decimalSaltPrefix } from "./salt.js";

describe("salt prefixes", () => {
  it("decimal: fixed width then the separator, so 1 never prefixes 10", () => {
    const prefix = decimalSaltPrefix(3, 0x5f);
    const key = Buffer.alloc(4);
    prefix.write(key, 7);
    expect(key.toString()).toBe("007_");
    expect(prefix.read(key)).toBe(7);
    prefix.write(key, 61);
    expect(key.toString()).toBe("061_");
    expect(() => prefix.read(Buffer.from("06x_"))).toThrow(
      expect.objectContaining({ problem: "bad-salt", at: 2 }),
    );
    expect(() => prefix.read(Buffer.from("061#"))).toThrow(
      expect.objectContaining({ problem: "bad-salt", at: 3 }),
    );
  });

  it("binary: one byte up to 256 buckets, else two big-endian", () => {
    const key = Buffer.alloc(2);
    binarySaltPrefix(1).write(key, 255);
    expect(key[0]).toBe(255);
    binarySaltPrefix(2).write(key, 0x1234);
    expect(key.toString("hex")).toBe("1234");
    expect(binarySaltPrefix(2).read(key)).toBe(0x1234);
  });
});
