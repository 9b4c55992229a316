import { describe, expect, it } from "vitest";
import type { AccessRecord } from "../../access-log/access-record.js";
import { compileSchema } from "../../keys/index.js";
import type { SchemaSpec } from "../../keys/types.js";
import { Replay } from "./replay.js";

const timeFirst: SchemaSpec = {
  version: 1,
  name: "post-ts-author",
  layout: "text",
  separator: "_",
  segments: [
    { literal: "post" },
    { field: "ts", codec: { type: "timestamp", unit: "ms" } },
    { field: "author", codec: { type: "string" } },
  ],
};
const current = { name: "current", schema: compileSchema(timeFirst) };
const salted = {
  name: "salt-32",
  schema: compileSchema({ ...timeFirst, name: "salt32-post", salt: { buckets: 32, fields: ["ts"] } }),
};

const START = Date.parse("2026-01-01T00:00:00Z");

/** A 1 % sample of 20,000 writes/s of 1 KB posts keyed by time, with a foreign key now and then. */
function* postLog(seconds: number): Generator<AccessRecord> {
  for (let s = 0; s < seconds; s++) {
    for (let k = 0; k < 200; k++) {
      const tsMs = START + s * 1000 + k * 5;
      const key = current.schema.encode({ ts: new Date(tsMs), author: `u${(k * 7919) % 5000}` });
      yield { tsMs, key, op: "write", bytes: 1024 };
    }
    if (s % 60 === 0)
      yield { tsMs: START + s * 1000, key: Buffer.from("legacy#row"), op: "write", bytes: 100 };
  }
}

describe("what-if replay", () => {
  const seconds = 600;
  const replay = new Replay(current, [salted], {
    nodes: 6,
    startMs: START,
    durationS: seconds,
    sampleRate: 0.01,
  });
  for (const record of postLog(seconds)) replay.add(record);
  const result = replay.finish();
  const [before, after] = result.designs;

  it("scales a sampled log back to its real rate", () => {
    expect(before!.summary.writes.perS).toBeCloseTo(20_000, -2);
    expect(after!.summary.writes.perS).toBeCloseTo(20_000, -2);
  });

  it("replays the recorded keys on one hot tail, and the re-encoded ones spread over the buckets", () => {
    expect(before!.summary.steadyState.hottestNodeCpu).toBeGreaterThan(1.3);
    expect(before!.summary.steadyState.maxOverMedian).toBeGreaterThan(10);
    expect(after!.summary.steadyState.hottestNodeCpu).toBeLessThan(0.5);
    expect(after!.summary.settledAfterS).toBe(0);
  });

  it("counts the rows the current schema cannot read, with the reason and the first keys, and replays the rest", () => {
    expect(result.records).toBe(seconds * 200 + seconds / 60);
    expect(result.undecodable.count).toBe(seconds / 60);
    expect(result.undecodable.reasons[0]!.keys[0]).toBe("legacy#row");
    expect(result.undecodable.reasons[0]!.reason.length).toBeGreaterThan(5);
  });
});
