import { Bigtable } from "@google-cloud/bigtable";
import { describe, expect, it } from "vitest";
import type { AccessRecord } from "./access-record.js";
import { instrumentBigtableTable } from "./instrument-bigtable.js";
import type { AccessLogSink } from "./sink.js";

if (!process.env.BIGTABLE_EMULATOR_HOST) {
  throw new Error(
    "BIGTABLE_EMULATOR_HOST is unset: start the emulator with `bash scripts/emulator.sh start`",
  );
}

class Collect implements AccessLogSink {
  readonly records: AccessRecord[] = [];
  write(record: AccessRecord): void {
    this.records.push(record);
  }
}

const instance = new Bigtable({ projectId: "keyspread", metricsEnabled: false }).instance("keyspread");

async function freshTable() {
  const id = `instrumented-${Date.now()}-${Math.floor(Math.random() * 1e6)}`;
  await instance.createTable(id, { families: ["m"] });
  return instance.table(id);
}

const readAll = async (stream: NodeJS.ReadableStream) => {
  const rows: { id: string; data: unknown }[] = [];
  for await (const row of stream as AsyncIterable<{ id: string; data: unknown }>)
    rows.push({ id: row.id, data: row.data });
  return rows;
};

describe("instrumentBigtableTable (the official client on the emulator)", () => {
  it("returns what the plain client returns, and logs each write and each read", async () => {
    const plain = await freshTable();
    const sink = new Collect();
    const table = instrumentBigtableTable(plain, { sink });
    const entries = Array.from({ length: 20 }, (_, n) => ({
      key: `dev-${String(n).padStart(2, "0")}#1`,
      data: { m: { value: `v${n}` } },
    }));
    await table.insert(entries);
    await table.mutate([{ key: "dev-99#1", method: "insert", data: { m: { value: "x" } } }]);
    await table.row("dev-50#1").save({ m: { value: "saved" } });
    const writes = sink.records.filter((record) => record.op === "write");
    expect(writes).toHaveLength(22);
    expect(writes[0]).toMatchObject({ key: Buffer.from("dev-00#1"), op: "write" });
    expect(writes[0]!.bytes).toBeGreaterThan(2);

    const request = { ranges: [{ start: "dev-05", end: "dev-10" }] };
    expect(await readAll(table.createReadStream(request))).toEqual(
      await readAll(plain.createReadStream(request)),
    );
    const [viaLogged] = await table.getRows({ keys: ["dev-03#1", "dev-04#1"] });
    const [viaPlain] = await plain.getRows({ keys: ["dev-03#1", "dev-04#1"] });
    expect(viaLogged.map((row) => row.id)).toEqual(viaPlain.map((row) => row.id));
    const [one] = await table.row("dev-07#1").get();
    expect(one.id).toBe("dev-07#1");

    const scans = sink.records.filter((record) => record.op === "scan");
    expect(scans).toHaveLength(1);
    expect(scans[0]).toMatchObject({ key: Buffer.from("dev-05"), end: Buffer.from("dev-10"), rows: 5 });
    const reads = sink.records.filter((record) => record.op === "read");
    expect(reads.map((record) => record.key.toString())).toEqual(["dev-03#1", "dev-04#1", "dev-07#1"]);
  });

  it("logs nothing at a sample rate of 0 and still answers", async () => {
    const sink = new Collect();
    const table = instrumentBigtableTable(await freshTable(), { sink, sampleRate: 0 });
    await table.insert([{ key: "a", data: { m: { value: "1" } } }]);
    expect(await readAll(table.createReadStream())).toHaveLength(1);
    expect(sink.records).toEqual([]);
  });
});
