import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseSchema } from "../../keys/schema.js";
import { EmbeddedStore } from "../../store/embedded/embedded.js";
import { SaltedTable } from "../../table/salted-table.js";

// End-to-end on the built bin, from an embedded table of the example fleet schema.
const FLEET = "examples/schemas/fleet.yaml";
const DAY = 86_400_000;

describe("keyspread export", () => {
  it("exports a device's key range to day-partitioned Parquet with a typed value column", async () => {
    const dir = mkdtempSync(join(tmpdir(), "keyspread-export-cli-"));
    const store = await EmbeddedStore.open({ table: "fleet", directory: dir });
    const table = await SaltedTable.open(store, parseSchema(readFileSync(FLEET, "utf8")), { create: true });
    await table.putMany(
      Array.from({ length: 40 }, (_, i) => ({
        values: { deviceId: `dev-${i % 2}`, metric: "cpu", ts: Date.UTC(2026, 10, 1) + (i % 5) * DAY + i },
        cells: { value: String(i) },
      })),
    );
    await store.close();

    const out = join(dir, "parquet");
    const result = spawnSync(
      "node",
      [
        "dist/cli/main.js",
        "export",
        "--from",
        `embedded:${dir}/fleet`,
        "--schema",
        FLEET,
        "--query",
        JSON.stringify({ eq: { deviceId: "dev-1" } }),
        "--parquet",
        out,
        "--cell",
        "value:DOUBLE",
      ],
      { encoding: "utf8" },
    );
    expect(result.status, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({
      rows: 20,
      partitionedBy: "ts",
      days: 5,
      parquetDir: out,
    });
    expect(readdirSync(out)).toHaveLength(5);
  });

  it("needs somewhere to write", () => {
    const result = spawnSync(
      "node",
      ["dist/cli/main.js", "export", "--from", "embedded:x", "--schema", FLEET],
      {
        encoding: "utf8",
      },
    );
    expect(result.status).toBe(1);
    expect(result.stderr).toContain("export: give --parquet DIR, --duckdb FILE, or both");
  });
});
