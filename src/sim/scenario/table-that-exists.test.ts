import { describe, expect, it } from "vitest";
import { deviceKey, saltedDeviceKey } from "./schemas.fixture.js";
import { tableFor } from "./table-that-exists.js";

const current = { name: "current", schema: deviceKey };

describe("tableFor", () => {
  it("is the current key's table for every design that keeps the key; a key change or table: new is a new table", () => {
    const renamed = { ...deviceKey, name: "same-key-other-name" };
    expect(tableFor({ name: "more-nodes", schema: deviceKey, nodes: 24 }, current)).toBe("existing");
    expect(tableFor({ name: "batched", schema: renamed, batch: 2 }, current)).toBe("existing");
    expect(tableFor({ name: "salted", schema: saltedDeviceKey(16) }, current)).toBe("new");
    expect(tableFor({ name: "fresh", schema: deviceKey, table: "new" }, current)).toBe("new");
    expect(tableFor({ name: "adopted", schema: saltedDeviceKey(16), table: "existing" }, current)).toBe(
      "existing",
    );
  });
});
