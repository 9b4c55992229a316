/** The corpus with the reads each table needs: the verdict holds, and every read is a key range. */
import { describe } from "vitest";
import { CORPUS, checkEntry } from "./corpus.testsuite.js";

describe.each(CORPUS.map((entry) => [entry.name, entry] as const))(
  "advising on %s (with reads)",
  (_name, entry) => {
    checkEntry(entry, true);
  },
);
