import { describe, expect, it } from "vitest";
import { compileSchema } from "../keys/schema.js";
import type { SchemaSpec } from "../keys/types.js";
import { bucketSplits } from "./splits.js";

const spec = (salt?: SchemaSpec["salt"], layout: SchemaSpec["layout"] = "text"): SchemaSpec => ({
  version: 1,
  name: "s",
  layout,
  segments: [{ field: "id", codec: { type: "string" } }],
  ...(salt ? { salt } : {}),
});

describe("bucketSplits", () => {
  it("splits a salted table at every bucket's first key", () => {
    expect(bucketSplits(compileSchema(spec({ buckets: 16 }))).map(String)).toEqual(
      Array.from({ length: 15 }, (_, i) => `${String(i + 1).padStart(2, "0")}#`),
    );
    expect(bucketSplits(compileSchema(spec({ buckets: 4, hash: "phoenix" })))).toEqual(
      [1, 2, 3].map((b) => Buffer.from([b])),
    );
    expect(bucketSplits(compileSchema(spec({ buckets: 300 }, "binary")))[0]).toEqual(Buffer.from([0, 1]));
    expect(bucketSplits(compileSchema(spec()))).toEqual([]);
    expect(bucketSplits(compileSchema(spec({ buckets: 1 })))).toEqual([]);
  });

  it("splits an unsalted key that leads with a reversed id at its leading digits, where its writes spread evenly", () => {
    const reversed = (layout: SchemaSpec["layout"]): SchemaSpec => ({
      version: 1,
      name: "orders",
      layout,
      segments: [{ literal: "order" }, { field: "orderId", codec: { type: "reversed-uint", width: 12 } }],
    });
    const text = bucketSplits(compileSchema(reversed("text"))).map(String);
    expect(text).toHaveLength(99);
    expect([text[0], text[98]]).toEqual(["order#01", "order#99"]);
    const binary = bucketSplits(compileSchema(reversed("binary")));
    expect(binary).toHaveLength(255);
    expect(binary[0]).toEqual(Buffer.from([..."order"].map((c) => c.charCodeAt(0)).concat(1)));
  });

  it("spreads at most `max` splits evenly over many buckets", () => {
    const splits = bucketSplits(compileSchema(spec({ buckets: 5000 })));
    expect(splits).toHaveLength(1000);
    expect(splits[0]!.toString()).toBe("0001#");
    expect(splits[1]!.toString()).toBe("0005#");
    expect([...splits].sort(Buffer.compare)).toEqual(splits);
    expect(new Set(splits.map(String)).size).toBe(1000);
    expect(bucketSplits(compileSchema(spec({ buckets: 10 })), 3).map(String)).toEqual(["1#", "4#", "7#"]);
  });
});
