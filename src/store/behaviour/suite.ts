/**
 * The behaviour every Store must show, as a suite any test runner can run (the way abstract-level
 * ships its suite): a third-party `Store` passes it to be a drop-in for ours, and each of our stores
 * runs it from its own test file —
 * `describeStoreBehaviour({ describe, it, expect }, "memory", async () => new MemoryStore())`.
 * One file per operation; optional behaviour runs when the store `supports` it (all by default),
 * persistence and write failures when the options say how to reopen a store or make writes fail.
 * Published as `keyspread/store/testing`.
 */
import type { Store } from "../store.js";
import { appProfileTests } from "./app-profiles.js";
import { batchTests } from "./batches.js";
import { cellDeleteTests } from "./cell-deletes.js";
import { conditionalMutationTests } from "./conditional-mutations.js";
import type { StoreTestApi } from "./harness/test-api.js";
import { type StoreBehaviourOptions, storeTestCommon } from "./harness/test-common.js";
import { keyOrderTests } from "./key-order.js";
import { keySampleTests } from "./key-samples.js";
import { keySizeTests } from "./key-sizes.js";
import { multiRangeReadTests } from "./multi-range-reads.js";
import { putGetTests } from "./put-get.js";
import { readEndingTests } from "./read-ending.js";
import { readLimitTests } from "./read-limits.js";
import { readRangeTests } from "./read-ranges.js";
import { reopenTests } from "./reopen.js";
import { writeFailureTests } from "./write-failures.js";

/** Registers the suite: `open` gives a new, empty store for each test; every store it opened is closed after the test. */
export function describeStoreBehaviour(
  api: StoreTestApi,
  name: string,
  open: () => Promise<Store>,
  options: StoreBehaviourOptions = {},
): void {
  api.describe(`Store behaviour: ${name}`, () => {
    const { test, common } = storeTestCommon(api, open, options);
    keyOrderTests(test, common);
    readRangeTests(test, common);
    readLimitTests(test, common);
    multiRangeReadTests(test, common);
    readEndingTests(test, common);
    putGetTests(test, common);
    if (common.supports.cellDeletes) cellDeleteTests(test, common);
    batchTests(test, common);
    conditionalMutationTests(test, common);
    keySizeTests(test, common);
    if (common.supports.appProfiles) appProfileTests(test, common);
    if (common.supports.keySamples) keySampleTests(test, common);
    if (options.reopen !== undefined) reopenTests(test, common, options.reopen);
    if (options.openFailingWrites !== undefined) writeFailureTests(test, common, options.openFailingWrites);
  });
}
