// Types a schema written in TypeScript gives its values, checked by tsc over the tests. Calls sit
// in functions that never run; every `@ts-expect-error` is a mistake the compiler must catch.
import { describe, expectTypeOf, it } from "vitest";
import { compileSchema, defineSchema, type parseSchema } from "./schema.js";
import { typedFleet as fleet } from "./typed-fleet.fixture.js";
import type { FieldValues } from "./types.js";

/** Type-checked, never run (the values are not real keys). */
function compileOnly<A extends unknown[]>(_code: (...args: A) => unknown): void {}

describe("a schema compiled from a spec written in TypeScript", () => {
  it("types encode's fields and values by the codecs", () => {
    expectTypeOf(fleet.encode).parameter(0).toEqualTypeOf<{
      deviceId: string;
      metric: "cpu" | "mem";
      ts: number | bigint | Date;
      seq: number | bigint;
    }>();
    compileOnly(() => {
      fleet.encode({ deviceId: "d", metric: "cpu", ts: new Date(), seq: 1 });
      // @ts-expect-error a misspelt field
      fleet.encode({ deviceId: "d", metrik: "cpu", ts: 1, seq: 1 });
      // @ts-expect-error a value the enum does not have
      fleet.encode({ deviceId: "d", metric: "disk", ts: 1, seq: 1 });
      // @ts-expect-error a missing field
      fleet.encode({ deviceId: "d", metric: "cpu", seq: 1 });
    });
  });

  it("types decoded values as decoding gives them back", () => {
    type Values = ReturnType<typeof fleet.decode>["values"];
    expectTypeOf<Values>().toEqualTypeOf<{
      deviceId: string;
      metric: "cpu" | "mem";
      ts: number;
      seq: number | bigint;
    }>();
    compileOnly((values: Values) => Date.now() - values.ts);
  });

  it("types queries by the fields", () => {
    compileOnly(() => {
      fleet.plan({ eq: { deviceId: "d", metric: "mem" }, range: { field: "ts", gte: new Date() } });
      // @ts-expect-error a misspelt field in eq
      fleet.plan({ eq: { deviceId: "d", metrik: "mem" } });
      // @ts-expect-error a range on a field the schema does not have
      fleet.plan({ range: { field: "tss", gte: 1 } });
      // @ts-expect-error a range bound of the wrong type for its field
      fleet.plan({ range: { field: "deviceId", gte: 1 } });
      fleet.bucketOf({ deviceId: "d" });
    });
  });

  it("is typed the same through defineSchema, and stays a KeySchema", () => {
    const spec = defineSchema({
      version: 1,
      name: "s",
      layout: "binary",
      segments: [{ field: "id", codec: { type: "int64" } }],
    });
    const schema = compileSchema(spec);
    expectTypeOf<ReturnType<typeof schema.decode>["values"]>().toEqualTypeOf<{ id: bigint }>();
    expectTypeOf(schema).toExtend<ReturnType<typeof parseSchema>>();
  });

  it("leaves a schema read from a file untyped", () => {
    expectTypeOf<Parameters<ReturnType<typeof parseSchema>["encode"]>[0]>().toEqualTypeOf<FieldValues>();
  });
});
