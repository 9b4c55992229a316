import { describe, expect, it } from "vitest";
import { MemoryStore } from "../memory/memory.js";
import type { StoreBehaviourOptions } from "./harness/test-common.js";
import { describeStoreBehaviour } from "./suite.js";

/** The titles the suite registers for a store with these options (nothing runs). */
function registered(options?: StoreBehaviourOptions): string[] {
  const titles: string[] = [];
  describeStoreBehaviour(
    { describe: (_name, body) => body(), it: (title) => titles.push(title), expect },
    "recorded",
    async () => new MemoryStore(),
    options,
  );
  return titles;
}

describe("describeStoreBehaviour", () => {
  const all = registered({
    reopen: async (store) => store,
    openFailingWrites: async () => new MemoryStore(),
  });

  it("registers every operation's tests once, persistence and write failures when the options open them", () => {
    expect(new Set(all).size).toBe(all.length);
    expect(all).toContain("keeps its rows across close and reopen");
    expect(all).toContain("reports each failed mutation by index, with its reason, and applies the rest");
    expect(registered()).toEqual(
      all.filter(
        (title) =>
          title !== "keeps its rows across close and reopen" &&
          title !== "reports each failed mutation by index, with its reason, and applies the rest",
      ),
    );
  });

  it("leaves out exactly the tests of what the store does not support", () => {
    const everything = registered();
    const leftOut = (supports: StoreBehaviourOptions["supports"]) =>
      everything.filter((title) => !registered({ supports }).includes(title));
    expect(leftOut({})).toEqual([]);
    expect(leftOut({ appProfiles: false })).toEqual([
      "accepts an app profile per operation and rejects a malformed one by name",
    ]);
    expect(leftOut({ abortSignals: false })).toEqual([
      "ends a read with the abort reason when its signal aborts",
    ]);
    expect(leftOut({ cellDeletes: false })).toEqual(["deletes named cells, and the row with its last cell"]);
    expect(leftOut({ keySamples: false })).toEqual(["samples sorted keys of the table"]);
  });
});
