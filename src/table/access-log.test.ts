import { describe, expect, it } from "vitest";
import type { AccessRecord } from "../access-log/access-record.js";
import type { AccessLogSink } from "../access-log/sink.js";
import { compileSchema } from "../keys/index.js";
import { MemoryStore } from "../store/memory/memory.js";
import { SaltedTable } from "./salted-table.js";

const schema = compileSchema({
  version: 1,
  name: "fleet",
  layout: "text",
  segments: [
    { field: "deviceId", codec: { type: "string" } },
    { field: "ts", codec: { type: "timestamp", unit: "ms", reverse: true } },
  ],
  salt: { buckets: 4, fields: ["deviceId", "ts"] },
});

class Collect implements AccessLogSink {
  readonly records: AccessRecord[] = [];
  write(record: AccessRecord): void {
    this.records.push(record);
  }
}

const rows = Array.from({ length: 40 }, (_, n) => ({
  values: { deviceId: `dev-${n % 4}`, ts: new Date(Date.UTC(2026, 0, 1) + n * 1000) },
  cells: { value: `v${n}` },
}));

describe("a table's access log", () => {
  it("records every row written, every get and every range a read scanned, without changing answers", async () => {
    const sink = new Collect();
    const logged = await SaltedTable.open(new MemoryStore(), schema, { create: true, accessLog: { sink } });
    const plain = await SaltedTable.open(new MemoryStore(), schema, { create: true });
    for (const table of [logged, plain]) await table.putMany(rows);
    expect(sink.records.filter((record) => record.op === "write")).toHaveLength(40);
    const writes = sink.records.filter((record) => record.op === "write");
    expect(writes[0]).toMatchObject({ op: "write", bytes: "value".length + 2 });
    expect(
      writes.every((record) => record.latencyMs! >= 0 && schema.decode(record.key).values.deviceId),
    ).toBe(true);

    const latest = (table: SaltedTable) => table.latest({ eq: { deviceId: "dev-1" } }, 5);
    expect(await latest(logged)).toEqual(await latest(plain));
    const scans = sink.records.filter((record) => record.op === "scan");
    // A salt over the time: one range per bucket, each with its end and the rows it gave.
    expect(scans).toHaveLength(4);
    expect(scans.every((scan) => scan.end !== undefined && scan.rows! >= 0)).toBe(true);
    expect(scans.reduce((sum, scan) => sum + scan.rows!, 0)).toBeGreaterThanOrEqual(5);

    const values = rows[7]!.values;
    expect(await logged.get(values)).toEqual(await plain.get(values));
    expect(sink.records.at(-1)).toMatchObject({ op: "read", key: schema.encode(values) });
  });

  it("records about the share of operations it samples, and none at a rate of 0", async () => {
    const sink = new Collect();
    const table = await SaltedTable.open(new MemoryStore(), schema, {
      create: true,
      accessLog: { sink, sampleRate: 0.25 },
    });
    const many = Array.from({ length: 4000 }, (_, n) => ({
      values: { deviceId: `d${n}`, ts: new Date(n) },
      cells: { value: "x" },
    }));
    await table.putMany(many);
    expect(sink.records.length).toBeGreaterThan(800);
    expect(sink.records.length).toBeLessThan(1200);
    const silent = new Collect();
    await (
      await SaltedTable.open(new MemoryStore(), schema, {
        create: true,
        accessLog: { sink: silent, sampleRate: 0 },
      })
    ).putMany(many);
    expect(silent.records).toEqual([]);
    await expect(
      SaltedTable.open(new MemoryStore(), schema, { create: true, accessLog: { sink, sampleRate: 2 } }),
    ).rejects.toThrow(
      expect.objectContaining({ name: "TableOptionError", option: "accessLog.sampleRate", value: 2 }),
    );
  });
});
