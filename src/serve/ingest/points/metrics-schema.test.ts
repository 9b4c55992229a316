import { describe, expect, it } from "vitest";
import { MemoryStore } from "../../../store/memory/memory.js";
import { SaltedTable } from "../../../table/salted-table.js";
import { SchemaMismatchError } from "../../../table/schema-guard.js";
import { metricsSchema } from "./metrics-schema.js";

describe("metricsSchema", () => {
  it("refuses a table written with another aggregation interval instead of misreading it", async () => {
    const store = new MemoryStore();
    await SaltedTable.open(store, metricsSchema(4, 2000), { create: true });
    const reopening = SaltedTable.open(store, metricsSchema(4, 500), { create: true });
    await expect(reopening).rejects.toBeInstanceOf(SchemaMismatchError);
    await expect(reopening).rejects.toThrow(/interval-2000ms.*interval-500ms/);
  });
});
