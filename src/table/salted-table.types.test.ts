// Types a SaltedTable takes from its schema, checked by tsc over the tests: every `@ts-expect-error`
// is a mistake the compiler must catch (an unneeded one fails tsc too). Calls inside `compileOnly`
// never run.
import { describe, expect, expectTypeOf, it } from "vitest";
import { parseSchema } from "../keys/schema.js";
import { typedFleet as fleet } from "../keys/typed-fleet.fixture.js";
import type { FieldValue, FieldValues } from "../keys/types.js";
import { MemoryStore } from "../store/memory/memory.js";
import { type PutResult, type PutRow, SaltedTable, type TableRow, type TableScan } from "./salted-table.js";

/** What the schema's fields take, and what reading gives back. */
type Written = { deviceId: string; metric: "cpu" | "mem"; ts: number | bigint | Date; seq: number | bigint };
type Read = { deviceId: string; metric: "cpu" | "mem"; ts: number; seq: number | bigint };

/** Type-checked, never run. */
function compileOnly(_code: () => unknown): void {}

describe("a SaltedTable on a schema written in TypeScript", () => {
  it("takes the schema's field values on every write and read, and gives back its decoded values", async () => {
    const table = await SaltedTable.open(new MemoryStore(), fleet, { create: true });
    expectTypeOf(table).toEqualTypeOf<SaltedTable<Written, Read>>();
    expectTypeOf(table.put).parameter(0).toEqualTypeOf<Written>();
    expectTypeOf(table.putMany).parameter(0).toEqualTypeOf<readonly PutRow<Written>[]>();
    expectTypeOf(table.putMany).returns.resolves.toEqualTypeOf<PutResult<Written>>();
    expectTypeOf(table.delete).parameter(0).toEqualTypeOf<Written>();
    expectTypeOf(table.get).parameter(0).toEqualTypeOf<Written>();
    expectTypeOf(table.get).returns.resolves.toEqualTypeOf<TableRow<Read> | undefined>();
    expectTypeOf(table.latest).returns.resolves.toEqualTypeOf<TableRow<Read>[]>();
    expectTypeOf(table.scan).returns.toEqualTypeOf<TableScan<Read>>();

    const written = Date.now() - 1_000;
    await table.putMany([
      { values: { deviceId: "dev-1", metric: "cpu", ts: written, seq: 1 }, cells: { value: "0.9" } },
    ]);
    const [newest] = await table.latest({ eq: { deviceId: "dev-1", metric: "cpu" } }, 1);
    // No cast: a millisecond timestamp field reads back as a number.
    const ageMs = Date.now() - newest!.values.ts;
    expect(ageMs).toBeGreaterThanOrEqual(1_000);
    for await (const row of table.scan({ eq: { deviceId: "dev-1" } })) {
      expectTypeOf(row.values).toEqualTypeOf<Read>();
      expect(row.values).toEqual({ deviceId: "dev-1", metric: "cpu", ts: written, seq: 1 });
    }
    await table.store.close();
  });

  it("refuses wrong field names and value types at compile time", () => {
    compileOnly(async () => {
      const table = await SaltedTable.open(new MemoryStore(), fleet);
      // @ts-expect-error a misspelt field
      await table.put({ deviceId: "d", metrik: "cpu", ts: 1, seq: 1 }, { value: "1" });
      // @ts-expect-error a value the enum does not have
      await table.putMany([{ values: { deviceId: "d", metric: "disk", ts: 1, seq: 1 }, cells: {} }]);
      // @ts-expect-error a string where the field is a timestamp
      await table.put({ deviceId: "d", metric: "cpu", ts: "yesterday", seq: 1 }, {});
      // @ts-expect-error a missing field
      await table.get({ deviceId: "d", metric: "cpu", seq: 1 });
      // @ts-expect-error a misspelt field in a query
      await table.latest({ eq: { deviceId: "d", metrik: "cpu" } }, 10);
      // @ts-expect-error a range bound of the wrong type for its field
      table.scan({ eq: { deviceId: "d", metric: "cpu" }, range: { field: "ts", gte: "yesterday" } });
      const [row] = await table.latest({ eq: { deviceId: "d", metric: "cpu" } }, 1);
      // @ts-expect-error a field the rows do not have
      row!.values.timestamp;
    });
  });

  it("still passes where any SaltedTable is taken", () => {
    expectTypeOf<SaltedTable<Written, Read>>().toExtend<SaltedTable>();
  });
});

describe("a SaltedTable on a schema read from a file", () => {
  it("keeps the loose types: any field, any field value", () => {
    compileOnly(async () => {
      const table = await SaltedTable.open(new MemoryStore(), parseSchema("{}"));
      expectTypeOf(table).toEqualTypeOf<SaltedTable<FieldValues, Record<string, FieldValue>>>();
      expectTypeOf(table.put).parameter(0).toEqualTypeOf<FieldValues>();
      expectTypeOf(table.latest).returns.resolves.toEqualTypeOf<TableRow<Record<string, FieldValue>>[]>();
    });
  });
});
