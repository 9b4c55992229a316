/**
 * `checkAndMutate` applies its mutation only when the named cell holds the expected value (or is
 * absent), atomically: of many processes claiming one row, exactly one wins.
 */
import type { StoreMutation } from "../store.js";
import { hex, text } from "./harness/rows.js";
import type { StoreTest, StoreTestCommon } from "./harness/test-common.js";

const putCells = (key: Buffer, cells: Record<string, Buffer>): StoreMutation => ({
  type: "put",
  key,
  cells: new Map(Object.entries(cells)),
});

export function conditionalMutationTests(test: StoreTest, { expect, fresh }: StoreTestCommon): void {
  test("applies a put only where the cell is absent, or holds exactly the expected bytes", async () => {
    const store = await fresh();
    const key = text("lease");
    const absent = { qualifier: "owner", equals: null };
    expect(await store.checkAndMutate(putCells(key, { owner: text("a"), n: text("1") }), absent)).toBe(true);
    expect(await store.checkAndMutate(putCells(key, { owner: text("b") }), absent)).toBe(false);
    expect((await store.get(key))?.cells).toEqual(
      new Map([
        ["owner", text("a")],
        ["n", text("1")],
      ]),
    );

    const owner = (value: Buffer | null) => ({ qualifier: "owner", equals: value });
    // A prefix, a longer value and another value all differ; only the exact bytes match.
    for (const wrong of [text(""), text("ab"), text("b"), text("A")]) {
      expect(await store.checkAndMutate(putCells(key, { n: text("x") }), owner(wrong))).toBe(false);
    }
    expect(
      await store.checkAndMutate(putCells(key, { owner: text("b"), n: text("2") }), owner(text("a"))),
    ).toBe(true);
    // The newest version counts: the old value no longer matches.
    expect(await store.checkAndMutate(putCells(key, { n: text("3") }), owner(text("a")))).toBe(false);
    expect((await store.get(key))?.cells).toEqual(
      new Map([
        ["owner", text("b")],
        ["n", text("2")],
      ]),
    );
    // A condition on another cell of the row, and on a row that does not exist.
    expect(
      await store.checkAndMutate(putCells(key, { other: text("1") }), { qualifier: "other", equals: null }),
    ).toBe(true);
    expect(await store.checkAndMutate(putCells(text("none"), { v: text("1") }), owner(text("b")))).toBe(
      false,
    );
    expect(await store.get(text("none"))).toBeUndefined();
  });

  test("compares binary values byte for byte, and conditions deletes", async () => {
    const store = await fresh();
    const key = hex("ff00");
    const token = hex("00ff80c328");
    await store.write([putCells(key, { token, keep: text("k") })]);
    const holds = { qualifier: "token", equals: token };
    expect(
      await store.checkAndMutate(
        { type: "delete", key, qualifiers: ["token"] },
        { ...holds, equals: hex("00ff80c3") },
      ),
    ).toBe(false);
    expect(await store.checkAndMutate({ type: "delete", key, qualifiers: ["token"] }, holds)).toBe(true);
    expect((await store.get(key))?.cells).toEqual(new Map([["keep", text("k")]]));
    expect(await store.checkAndMutate({ type: "delete", key }, { qualifier: "token", equals: null })).toBe(
      true,
    );
    expect(await store.get(key)).toBeUndefined();
  });

  test("lets exactly one of many concurrent claims win", async () => {
    const store = await fresh();
    const key = text("shard-7");
    const claims = await Promise.all(
      Array.from({ length: 24 }, (_, i) =>
        store.checkAndMutate(putCells(key, { owner: text(`task-${i}`) }), {
          qualifier: "owner",
          equals: null,
        }),
      ),
    );
    expect(claims.filter(Boolean)).toHaveLength(1);
    const winner = claims.indexOf(true);
    expect((await store.get(key))?.cells.get("owner")).toEqual(text(`task-${winner}`));
  });

  test("rejects a malformed condition or mutation by field, writing nothing", async () => {
    const store = await fresh();
    const key = text("k");
    const mutation = putCells(key, { v: text("1") });
    await expect(store.checkAndMutate(mutation, { qualifier: "", equals: null })).rejects.toThrow(
      /condition\.qualifier/,
    );
    await expect(
      store.checkAndMutate(mutation, { qualifier: "v", equals: "1" as unknown as Buffer }),
    ).rejects.toThrow(/condition\.equals must be a Buffer or null/);
    await expect(
      store.checkAndMutate({ ...mutation, key: Buffer.alloc(0) }, { qualifier: "v", equals: null }),
    ).rejects.toThrow(/mutations\[0\]\.key/);
    expect(await store.get(key)).toBeUndefined();
  });
}
