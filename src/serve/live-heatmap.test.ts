import { describe, expect, it } from "vitest";
import type { AccessRecord } from "../access-log/access-record.js";
import { heatmapPageData } from "../viz/render/render.fixture.js";
import { metricsSchema } from "./ingest/points/metrics-schema.js";
import { renderLiveHeatmap } from "./observe/live-heatmap.js";

describe("the /heatmap page", () => {
  it("names rows through the service's key schema: bucket, tenant, device", () => {
    const schema = metricsSchema(4, 60_000);
    const records: AccessRecord[] = Array.from({ length: 400 }, (_, index) => ({
      tsMs: 1_796_000_000_000 + index * 100,
      key: schema.encode({
        tenant: `tenant-${index % 3}`,
        deviceId: `dev-${String(index % 40).padStart(4, "0")}`,
        interval: 1_796_000_000_000,
        segment: 1_796_000_000_000,
        writer: "0123456789",
      }),
      op: index % 2 === 0 ? "write" : "read",
      bytes: 100,
    }));
    const rows = heatmapPageData(renderLiveHeatmap(records, 10, schema)).designs[0]!.rows as {
      name?: string;
    }[];
    const named = rows.map((row) => row.name ?? "").filter((name) => name.includes("tenant-"));
    expect(named.length).toBeGreaterThan(0);
    for (const name of named) expect(name).toMatch(/^b\d · tenant-\d( · |–)/);
  });
});
