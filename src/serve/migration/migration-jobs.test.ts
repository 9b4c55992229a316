import { mkdtemp, readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { MemoryStore } from "../../store/memory/memory.js";
import { SaltedTable } from "../../table/salted-table.js";
import { metricsSchema } from "../ingest/points/metrics-schema.js";
import { encodeMetricPoints } from "../ingest/points/point-codec.js";
import { point, T0 } from "../ingest/points/points.testsuite.js";
import { runValidation } from "./migration-jobs.js";

const INTERVAL = 1000;

async function tables() {
  return {
    old: await SaltedTable.open(new MemoryStore({ name: "old" }), metricsSchema(1, INTERVAL), {
      create: true,
    }),
    new: await SaltedTable.open(new MemoryStore({ name: "new" }), metricsSchema(16, INTERVAL), {
      create: true,
    }),
  };
}

/** A row of device `d` holding one point per interval, as a flush of `segment` writes it. */
const row = (interval: number, segment: number, deviceId = "d") => ({
  values: { tenant: "t", deviceId, interval: T0 + interval * INTERVAL, segment, writer: "w" },
  cells: new Map([
    ["p", encodeMetricPoints([point(deviceId, T0 + interval * INTERVAL + 1)], T0 + interval * INTERVAL)],
  ]),
});

describe("runValidation (migrate validate --migration, run by the service)", () => {
  it("leaves out rows of segments at or after the cut (being written now), and finds any below it", async () => {
    const directory = await mkdtemp(join(tmpdir(), "live-validate-"));
    const both = await tables();
    const written = [row(1, 100), row(2, 200), row(2, 210, "e"), row(3, 300)];
    await both.old.putMany(written);
    await both.new.putMany(written.slice(0, 3));
    // Segment 300 reached the old table but not the new one yet; 400 the new table only.
    await both.new.putMany([row(4, 400)]);
    const job = {
      id: "v",
      state: "requested" as const,
      sample: 10,
      rowsPerEntity: 100,
      ranges: 4,
      requestedAt: "",
      updatedAt: "",
      report: join(directory, "report.jsonl"),
    };
    const clean = await runValidation(both, job, 300, new AbortController().signal);
    expect(clean.differences).toBe(0);
    expect(clean.summary).toMatchObject({
      cut: 300,
      source: { rows: 3, excluded: 1 },
      target: { rows: 3, excluded: 1 },
      entities: { fields: ["tenant", "deviceId"], compared: 2 },
    });

    // Below the cut, a row the new table lacks is a difference: in its interval range and in the device's latest rows.
    const found = await runValidation(both, job, 301, new AbortController().signal);
    expect(found.differences).toBeGreaterThanOrEqual(2);
    const lines = (await readFile(job.report, "utf8"))
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line));
    expect(lines.filter((line) => line.kind === "range")).not.toHaveLength(0);
    expect(lines.find((line) => line.kind === "entity")).toMatchObject({
      entity: { tenant: "t", deviceId: "d" },
    });
    expect(lines.at(-1)).toMatchObject({ differences: found.differences, cut: 301 });
  });
});
