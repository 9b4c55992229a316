import { describe, expect, it } from "vitest";
import { MemoryStore } from "../../store/memory/memory.js";
import { SaltedTable } from "../../table/salted-table.js";
import { IntervalBuffer } from "./points/interval-buffer.js";
import { metricsSchema } from "./points/metrics-schema.js";
import { RetentionSweeper } from "./retention-sweeper.js";

const DAY = 86_400_000;
const NOW = 1_764_484_000_000;

describe("RetentionSweeper", () => {
  it("deletes every row whose interval is older than the max age, and nothing else", async () => {
    const table = await SaltedTable.open(new MemoryStore({ name: "retention" }), metricsSchema(4), {
      create: true,
    });
    const buffer = new IntervalBuffer(1000);
    for (let device = 0; device < 30; device++) {
      for (const ageDays of [0, 1, 29, 31, 45]) {
        buffer.add([
          { tenant: "t", deviceId: `dev-${device}`, ts: NOW - ageDays * DAY, metrics: { v: ageDays } },
        ]);
      }
    }
    expect((await table.putMany([...buffer.rows(1, "w")])).failed).toEqual([]);
    const lines: string[] = [];
    const sweeper = new RetentionSweeper(table, {
      maxAgeMs: 30 * DAY,
      log: (line) => lines.push(line),
      now: () => NOW,
    });
    expect(await sweeper.sweep()).toBe(60);
    await sweeper.stop();
    const left = await table.scan({}).toArray();
    expect(left).toHaveLength(90);
    expect(left.every((row) => (row.values.interval as number) >= NOW - 30 * DAY)).toBe(true);
    expect(lines[0]).toMatch(/"event":"retention","deleted":60/);
  });
});
